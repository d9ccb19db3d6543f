import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { Tokens, type FullStore, type McpServerRecord } from '../../src/index.js';
import { json, seed, wardrik, type CliResult, type Seeded } from './helpers.js';
import { writeCall } from '../../src/store/journal-writes.js';

/** Fails with what the command printed, so a wrong exit code explains itself. */
function exits(result: CliResult, code: number): void {
  assert.equal(
    result.code,
    code,
    `expected exit ${code}, got ${result.code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`,
  );
}

/**
 * Every `wardrik` command against one kind of store, through the real binary. `newStore()` gives a
 * fresh, empty store URL for each test, which the test seeds through the library.
 */
export function cliSuite(name: string, newStore: () => Promise<string>): void {
  describe(`The wardrik command on ${name}`, () => {
    let url: string;
    let seeded: Seeded;
    const cli = (...args: string[]) => wardrik(['--store', url, ...args]);

    beforeEach(async () => {
      url = await newStore();
      seeded = await seed(url);
    });
    afterEach(async () => {
      await seeded.node.close();
    });

    describe('inbox', () => {
      it('lists every pending item with its id, kind, tool, arguments, labels, reason and age', async () => {
        const result = await cli('inbox');
        exits(result, 0);
        assert.match(result.stdout, /^4 pending \(store /);
        for (const id of [seeded.turn.approval, seeded.batch.approval, seeded.batch.park, seeded.batch.inDoubt])
          assert.match(result.stdout, new RegExp(id));
        assert.match(result.stdout, new RegExp(`${seeded.turn.approval}  approval  shop/refund  \\d+s ago`));
        assert.match(result.stdout, new RegExp(`${seeded.batch.park}  park  shop/ask_amount`));
        assert.match(result.stdout, new RegExp(`${seeded.batch.inDoubt}  in_doubt  shop/send_email`));
        assert.match(result.stdout, /arguments: \{"id":"ord_1"\}/);
        assert.match(result.stdout, /labels: {4}outside/);
        assert.match(result.stdout, /reason: {4}How much should be refunded\?/);
        assert.match(result.stdout, new RegExp(`wardrik approve ${seeded.turn.approval}`));
      });

      it('prints the items as JSON with --json, before or after the command', async () => {
        for (const args of [
          ['--json', 'inbox'],
          ['inbox', '--json'],
        ]) {
          const result = await cli(...args);
          exits(result, 0);
          const out = json<{
            items: {
              id: string;
              kind: string;
              tool: string;
              arguments: unknown;
              labels: string[];
              reason: string;
              digest: string;
              ageMs: number;
              status: string;
            }[];
          }>(result);
          assert.deepEqual(out.items.map((item) => item.kind).sort(), ['approval', 'approval', 'in_doubt', 'park']);
          const turnItem = out.items.find((item) => item.id === seeded.turn.approval)!;
          assert.deepEqual(turnItem.arguments, { id: 'ord_1' });
          assert.deepEqual(turnItem.labels, ['outside']);
          assert.equal(turnItem.status, 'pending');
          assert.match(turnItem.digest, /^[0-9a-f]{64}$/);
          assert.equal(typeof turnItem.ageMs, 'number');
        }
      });

      it('includes answered items with --all', async () => {
        exits(await cli('deny', seeded.batch.park, '--reason', 'no'), 0);
        const pending = json<{ items: unknown[] }>(await cli('inbox', '--json'));
        const all = json<{ items: { id: string; status: string }[] }>(await cli('inbox', '--all', '--json'));
        assert.equal(pending.items.length, 3);
        assert.equal(all.items.length, 4);
        assert.equal(all.items.find((item) => item.id === seeded.batch.park)?.status, 'denied');
      });
    });

    describe('approve', () => {
      it('records the approval and runs nothing itself; the node that offers the tool runs the call at its recovery', async () => {
        const result = await cli('approve', seeded.batch.approval, '--by', 'dana');
        exits(result, 0);
        assert.match(
          result.stdout,
          new RegExp(`Approved by dana: ${seeded.batch.approval} \\(shop/refund \\{"id":"ord_2"\\}\\)`),
        );
        assert.match(result.stdout, /It runs on the next node that offers shop\/refund/);
        const store = seeded.node.container.resolve(Tokens.Store);
        assert.equal((await store.getCall(seeded.batch.run, 'c1'))?.state, 'parked');
        assert.deepEqual(seeded.ran, []);
        assert.equal((await seeded.node.inbox.get(seeded.batch.approval))?.status, 'approved');
        await seeded.node.recover();
        assert.deepEqual(seeded.ran, ['refund:ord_2']);
        const call = await store.getCall(seeded.batch.run, 'c1');
        assert.equal(call?.state, 'succeeded');
        assert.equal(call?.costUsd, 0.25);
      });

      it('prints what it did as JSON, bound to the digest given', async () => {
        const item = (await seeded.node.inbox.get(seeded.batch.approval))!;
        const result = await cli('approve', seeded.batch.approval, '--digest', item.digest, '--json');
        exits(result, 0);
        const out = json<{ id: string; status: string; pending: boolean; tool: string; answer: { status: string } }>(
          result,
        );
        assert.equal(out.id, seeded.batch.approval);
        assert.equal(out.status, 'approved');
        assert.equal(out.pending, true);
        assert.equal(out.tool, 'shop/refund');
        assert.equal(out.answer.status, 'parked');
      });

      it('refuses a second approval with exit 4, and nothing changes', async () => {
        exits(await cli('approve', seeded.batch.approval, '--by', 'dana'), 0);
        const again = await cli('approve', seeded.batch.approval, '--by', 'sam');
        exits(again, 4);
        assert.match(again.stderr, /already approved by dana at .*nothing was done/);
        assert.equal((await seeded.node.inbox.get(seeded.batch.approval))?.by, 'dana');
        const asJson = await cli('--json', 'approve', seeded.batch.approval);
        exits(asJson, 4);
        assert.deepEqual(Object.keys(JSON.parse(asJson.stderr).error).sort(), ['code', 'exitCode', 'message']);
        assert.equal(JSON.parse(asJson.stderr).error.code, 'conflict');
      });

      it('refuses another digest with exit 4 and a malformed one with exit 2; the item stays pending', async () => {
        const stale = await cli('approve', seeded.batch.approval, '--digest', 'a'.repeat(64));
        exits(stale, 4);
        assert.match(stale.stderr, /approval was for other arguments/);
        const malformed = await cli('approve', seeded.batch.approval, '--digest', 'xyz');
        exits(malformed, 2);
        assert.match(malformed.stderr, /--digest must be the item's whole SHA-256 digest, 64 hex digits/);
        assert.equal((await seeded.node.inbox.get(seeded.batch.approval))?.status, 'pending');
      });

      it('refuses --allow-if naming a field the call does not have with exit 2, naming the fields it has; the item stays pending', async () => {
        const item = (await seeded.node.inbox.get(seeded.batch.approval))!;
        const result = await cli(
          'approve',
          seeded.batch.approval,
          '--digest',
          item.digest,
          '--scope',
          'run',
          '--allow-if',
          'no_such_field',
          '--json',
        );
        exits(result, 2);
        const error = JSON.parse(result.stderr).error as { code: string; message: string };
        assert.equal(error.code, 'usage');
        assert.match(
          error.message,
          /allowIf names argument fields of the approved call, such as \["id"\]; got \["no_such_field"\]/,
        );
        assert.doesNotMatch(
          result.stderr,
          /\n\s+at /,
          'no stack trace: the person typed a wrong field, nothing is broken',
        );
        assert.equal((await seeded.node.inbox.get(seeded.batch.approval))?.status, 'pending');
      });

      it('answers a wrong id with exit 3, naming the store and how to list the ids', async () => {
        const result = await cli('approve', 'no-such-item');
        exits(result, 3);
        assert.match(
          result.stderr,
          /No inbox item "no-such-item" to approve in store .*`wardrik inbox` lists the pending ones/,
        );
        const asJson = await cli('approve', 'no-such-item', '--json');
        exits(asJson, 3);
        assert.equal(JSON.parse(asJson.stderr).error.code, 'not_found');
      });

      it('refuses to approve a park or a call in doubt with exit 2, saying which command answers it', async () => {
        const parkResult = await cli('approve', seeded.batch.park);
        exits(parkResult, 2);
        assert.match(parkResult.stderr, /a tool's own park, not an approval.*wardrik answer/);
        const doubt = await cli('approve', seeded.batch.inDoubt);
        exits(doubt, 2);
        assert.match(doubt.stderr, /in doubt.*"happened":false/);
      });

      it('never runs or parks a call itself: calls a crash left in flight stay as they are', async () => {
        const store = seeded.node.container.resolve(Tokens.Store);
        const inFlight = (call: string, tool: string) =>
          writeCall(
            store,
            {
              run: seeded.batch.run,
              call,
              agent: 'batch',
              tool,
              arguments: { id: 'ord_3' },
              idempotencyKey: `k-${call}`,
              state: 'started',
              attempt: 1,
              updatedAt: Date.now(),
            },
            undefined,
          );
        await inFlight('c8', 'shop/lookup'); // repeatable: a node with the tool would run it again
        await inFlight('c9', 'shop/refund'); // not repeatable: a node with the tool would park it in doubt
        exits(await cli('approve', seeded.batch.approval), 0);
        exits(await cli('deny', seeded.batch.park, '--reason', 'no'), 0);
        exits(await cli('inbox'), 0);
        assert.equal((await store.getCall(seeded.batch.run, 'c8'))?.state, 'started');
        assert.equal((await store.getCall(seeded.batch.run, 'c9'))?.state, 'started');
        assert.equal((await store.getCall(seeded.batch.run, 'c1'))?.state, 'parked');
        assert.deepEqual(seeded.ran, []);
        assert.equal(
          (await seeded.node.inbox.list()).some((item) => item.call === 'c9'),
          false,
        );
      });

      it('lets the parked agent turn go on once the offering node recovers', async () => {
        exits(await cli('approve', seeded.turn.approval), 0);
        const agent = seeded.node.agents.get('support')!;
        const next = agent.result(seeded.turn.run);
        await seeded.node.recover();
        const turn = await next;
        // The turn's error, if any, is the only trace of why a resumed turn failed: show it with the status.
        assert.deepEqual({ status: turn.status, error: turn.error }, { status: 'done', error: undefined });
        assert.equal(turn.text, '[scripted] Refunded.');
      });
    });

    describe('deny', () => {
      it('refuses the call with the reason, which the model will read; nothing runs', async () => {
        const result = await cli('deny', seeded.batch.approval, '--reason', 'Over 30 days', '--by', 'dana');
        exits(result, 0);
        assert.match(result.stdout, /Denied by dana/);
        assert.match(result.stdout, /A person \(dana\) refused this call: Over 30 days/);
        const call = await seeded.node.container.resolve(Tokens.Store).getCall(seeded.batch.run, 'c1');
        assert.equal(call?.state, 'failed');
        assert.deepEqual(seeded.ran, []);
      });

      it('prints JSON with --json', async () => {
        const out = json<{ status: string; answer: { status: string; code: string } }>(
          await cli('deny', seeded.batch.approval, '--reason', 'no', '--json'),
        );
        assert.equal(out.status, 'denied');
        assert.deepEqual([out.answer.status, out.answer.code], ['error', 'refused']);
      });

      it('needs --reason (exit 2), and answers a wrong id with exit 3 and an answered item with exit 4', async () => {
        const missing = await cli('deny', seeded.batch.approval);
        exits(missing, 2);
        assert.match(missing.stderr, /required option '--reason <text>' not specified/);
        exits(await cli('deny', 'nope', '--reason', 'x'), 3);
        exits(await cli('deny', seeded.batch.approval, '--reason', 'x'), 0);
        const twice = await cli('deny', seeded.batch.approval, '--reason', 'x');
        exits(twice, 4);
        assert.match(twice.stderr, /already denied/);
      });
    });

    describe('answer', () => {
      it("gives a tool's own park its result", async () => {
        const result = await cli('answer', seeded.batch.park, '--json', '{"amountCents":1200}', '--by', 'dana');
        exits(result, 0);
        assert.match(result.stdout, /Answered by dana/);
        const call = await seeded.node.container.resolve(Tokens.Store).getCall(seeded.batch.run, 'c2');
        assert.equal(call?.state, 'succeeded');
        // The run had read outside text (the lookup), so the answer carries its label.
        assert.deepEqual(call?.answer, { status: 'ok', output: { amountCents: 1200 }, labels: ['outside'] });
      });

      it('records that a call in doubt happened, with its result, without running it', async () => {
        const result = await cli(
          '--json',
          'answer',
          seeded.batch.inDoubt,
          '--json',
          '{"happened":true,"result":{"sent":"by hand"}}',
        );
        exits(result, 0);
        const out = json<{ status: string; answer: { status: string; output: unknown } }>(result);
        assert.equal(out.status, 'answered');
        assert.deepEqual(out.answer.output, { sent: 'by hand' });
        assert.deepEqual(seeded.ran, []);
        assert.equal(
          (await seeded.node.container.resolve(Tokens.Store).getCall(seeded.batch.run, 'c3'))?.state,
          'succeeded',
        );
      });

      it('lets a call in doubt that did not happen run once, on the node that offers it', async () => {
        const result = await cli('answer', seeded.batch.inDoubt, '--json', '{"happened":false}');
        exits(result, 0);
        assert.match(result.stdout, /Approved: .*It runs on the next node that offers shop\/send_email/s);
        assert.deepEqual(seeded.ran, []);
        await seeded.node.recover();
        assert.deepEqual(seeded.ran, ['email:a@example.com']);
      });

      it('refuses bad JSON, an in-doubt answer of the wrong shape and an approval with exit 2', async () => {
        const bad = await cli('answer', seeded.batch.park, '--json', '{amount: 12}');
        exits(bad, 2);
        assert.match(bad.stderr, /--json must be a JSON value; .* is not .*Quote it for the shell/);
        const shape = await cli('answer', seeded.batch.inDoubt, '--json', '{"ok":true}');
        exits(shape, 2);
        assert.match(shape.stderr, /say whether it happened/);
        const approval = await cli('answer', seeded.batch.approval, '--json', '1');
        exits(approval, 2);
        assert.match(approval.stderr, /asks for approval, not for a value: wardrik approve/);
        exits(await cli('answer', 'nope', '--json', '1'), 3);
        assert.equal((await seeded.node.inbox.get(seeded.batch.park))?.status, 'pending');
      });
    });

    describe('prune', () => {
      it('deletes finished runs older than --older-than and says what went; parked and in-doubt runs stay', async () => {
        // A finished run of calls only, next to the seeded parked turn and the batch with parked and in-doubt calls.
        const finished = `done-${Date.now()}`;
        await seeded.node.runner.run({
          agent: 'batch',
          run: finished,
          call: { id: 'c0', name: 'shop__lookup', arguments: { id: 'ord_3' } },
        });
        const young = await cli('prune', '--older-than', '7d');
        exits(young, 0);
        assert.match(young.stdout, /^Nothing deleted from store .*: no runs finished before \d{4}-/);

        const dry = json<{ dryRun: boolean; removed: { runs: number; calls: number } }>(
          await cli('prune', '--older-than', '0ms', '--dry-run', '--json'),
        );
        assert.equal(dry.dryRun, true);
        assert.deepEqual([dry.removed.runs, dry.removed.calls], [1, 1]);
        assert.equal(
          (await seeded.node.container.resolve(Tokens.Store).listCalls({ run: finished })).length,
          1,
          'a dry run deletes nothing',
        );

        const result = await cli('prune', '--older-than', '0ms');
        exits(result, 0);
        // Its label went too, and its lease if the node had let it go by then.
        assert.match(
          result.stdout,
          /^Deleted from store .*: 1 run, 1 call, 1 label(, 1 lease)? \(runs finished before .*\)\. Parked and in-doubt runs were kept\./,
        );
        const store = seeded.node.container.resolve(Tokens.Store);
        assert.deepEqual(await store.listCalls({ run: finished }), []);
        assert.equal((await store.getTurn(seeded.turn.run))?.status, 'parked');
        assert.equal((await store.listCalls({ run: seeded.batch.run })).length, 4);
        assert.equal((await store.getInboxItem(seeded.batch.inDoubt))?.status, 'pending');
      });

      it('refuses an --older-than it cannot read with exit 2, naming the units', async () => {
        const result = await cli('prune', '--older-than', 'a week');
        exits(result, 2);
        assert.match(result.stderr, /an age such as 7d, 12h or 90m is needed/);
      });
    });

    describe('runs', () => {
      it('lists the runs most recent first, with agent, status, calls, parked and spend', async () => {
        const result = await cli('runs');
        exits(result, 0);
        assert.match(result.stdout, /^RUN +AGENT +STATUS +CALLS +PARKED +SPENT +LAST/);
        assert.match(result.stdout, new RegExp(`${seeded.turn.run} +support +parked +2 +1 +\\$0\\.1\\d{3}`));
        assert.match(result.stdout, new RegExp(`${seeded.batch.run} +batch +calls \\(parked\\) +4 +3 +\\$0\\.1000`));
        assert.ok(
          result.stdout.indexOf(seeded.batch.run) < result.stdout.indexOf(seeded.turn.run),
          'the batch ran last, so it comes first',
        );
      });

      it('filters by --agent and --limit, and prints JSON', async () => {
        const out = json<{
          runs: {
            run: string;
            agent: string;
            status?: string;
            calls: number;
            parked: number;
            costUsd: number;
            spentUsd: number;
          }[];
        }>(await cli('runs', '--agent', 'support', '--json'));
        assert.equal(out.runs.length, 1);
        assert.equal(out.runs[0]!.run, seeded.turn.run);
        assert.equal(out.runs[0]!.status, 'parked');
        assert.equal(out.runs[0]!.costUsd, 0.1);
        const limited = json<{ runs: unknown[] }>(await cli('--json', 'runs', '--limit', '1'));
        assert.equal(limited.runs.length, 1);
        const none = await cli('runs', '--agent', 'nobody');
        exits(none, 0);
        assert.match(none.stdout, /No runs of agent "nobody"/);
      });

      it('refuses a --limit that is not a whole number above 0 with exit 2', async () => {
        const result = await cli('runs', '--limit', 'lots');
        exits(result, 2);
        assert.match(result.stderr, /--limit <n>.*a whole number of at least 1/);
      });
    });

    describe('show', () => {
      it("shows an agent turn's timeline: status, steps, each call with answer, cost and labels, the run's labels, totals", async () => {
        const result = await cli('show', seeded.turn.run);
        exits(result, 0);
        assert.match(
          result.stdout,
          new RegExp(`^Run ${seeded.turn.run}\\nAgent support · turn parked · model scripted:scripted-cli-test`),
        );
        assert.match(result.stdout, /User: Refund ord_1, please\./);
        assert.match(
          result.stdout,
          /1\. .* model "\[scripted\] Looking it up\." → shop__lookup \{"id":"ord_1"\} · 1000 in \/ 100 out tokens · \$0\.0015/,
        );
        assert.match(result.stdout, /2\. .* tool answers → shop__lookup: \{"id":"ord_1","status":"shipped"\}/);
        assert.match(
          result.stdout,
          /shop\/lookup \{"id":"ord_1"\}\n +succeeded: \{"id":"ord_1","status":"shipped"\}\n +decided by default: read-only tools run\n +cost \$0\.1000 · labels outside · attempts 1/,
        );
        assert.match(
          result.stdout,
          /shop\/refund \{"id":"ord_1"\}\n +parked \(approval\): .*\n +decided by default: a tool that is not read-only asks a person\n +inbox .* \(approval, .*\): pending/,
        );
        assert.match(result.stdout, /Labels of the run: outside/);
        assert.match(result.stdout, new RegExp(`Waits on inbox item ${seeded.turn.approval}`));
        assert.match(
          result.stdout,
          /Totals: 2 calls \(1 succeeded, 0 failed, 1 parked\) · tools \$0\.1000 · model \$0\.0030 · spent \$0\.1030/,
        );
      });

      it('shows a run of calls without a turn, and its totals as JSON', async () => {
        const text = await cli('show', seeded.batch.run);
        exits(text, 0);
        assert.match(text.stdout, /calls made through runner\.run \(no agent turn\)/);
        assert.match(text.stdout, /running|parked \(in_doubt\)/);
        const out = json<{
          run: string;
          turn: unknown;
          calls: { call: string; state: string; decidedBy?: string }[];
          labels: string[];
          totals: Record<string, number>;
        }>(await cli('show', seeded.batch.run, '--json'));
        assert.equal(out.turn, null);
        // c3 was journaled without what decided it (a crash left it started): unknown, absent.
        assert.deepEqual(
          out.calls.map((call) => [call.call, call.decidedBy]),
          [
            ['c0', 'default: read-only tools run'],
            ['c1', 'default: a tool that is not read-only asks a person'],
            ['c2', 'default: read-only tools run'],
            ['c3', undefined],
          ],
        );
        assert.deepEqual(out.labels, ['outside']);
        assert.equal(out.totals.calls, 4);
        assert.equal(out.totals.parked, 3);
        assert.equal(out.totals.toolCostUsd, 0.1);
      });

      it('answers a wrong run id with exit 3', async () => {
        const result = await cli('show', 'no-such-run');
        exits(result, 3);
        assert.match(result.stderr, /No run "no-such-run" in store .*`wardrik runs` lists the runs/);
      });
    });

    describe('mcp', () => {
      const servers = (hub = 'mcp'): Promise<McpServerRecord[]> =>
        (seeded.node.container.resolve(Tokens.Store) as FullStore).listMcpServers(hub);

      it('adds a stdio server, checked as hub.add checks it, and lists it', async () => {
        const added = await cli(
          'mcp',
          'add',
          'github',
          '--command',
          'github-mcp-server',
          '--arg',
          'stdio',
          '--arg',
          '--read-only',
          '--only',
          'search_issues, create_issue',
          '--credential',
          'GITHUB_TOKEN',
          '--no-gated',
          '--timeout-ms',
          '5000',
        );
        exits(added, 0);
        assert.match(
          added.stdout,
          /Added MCP server "github" in hub "mcp": stdio: github-mcp-server stdio --read-only \(not gated, only search_issues, create_issue, credential GITHUB_TOKEN, timeout 5000 ms\)/,
        );
        const [record] = await servers();
        assert.deepEqual(record?.options, {
          transport: { stdio: { command: 'github-mcp-server', args: ['stdio', '--read-only'] } },
          only: ['search_issues', 'create_issue'],
          gated: false,
          credential: 'GITHUB_TOKEN',
          timeoutMs: 5000,
        });
        const listed = await cli('mcp', 'list');
        exits(listed, 0);
        assert.match(
          listed.stdout,
          /github +stdio: github-mcp-server stdio --read-only +not gated, only search_issues, create_issue, credential GITHUB_TOKEN/,
        );
      });

      it('adds an HTTP server to another hub, replaces it, lists and removes it, as JSON', async () => {
        const first = json<{ replaced: boolean; options: unknown }>(
          await cli(
            'mcp',
            'add',
            'linear',
            '--hub',
            'tickets',
            '--url',
            'https://mcp.example.com/mcp',
            '--trusted',
            '--json',
          ),
        );
        assert.equal(first.replaced, false);
        assert.deepEqual(first.options, { transport: { http: { url: 'https://mcp.example.com/mcp' } }, trusted: true });
        const second = json<{ replaced: boolean }>(
          await cli(
            'mcp',
            'add',
            'linear',
            '--hub',
            'tickets',
            '--url',
            'https://mcp.example.com/v2',
            '--gated',
            '--json',
          ),
        );
        assert.equal(second.replaced, true);
        const listed = json<{ hub: string; servers: McpServerRecord[] }>(
          await cli('mcp', 'list', '--hub', 'tickets', '--json'),
        );
        assert.deepEqual(
          listed.servers.map((server) => [server.name, server.options]),
          [['linear', { transport: { http: { url: 'https://mcp.example.com/v2' } }, gated: true }]],
        );
        assert.deepEqual(await servers(), []);
        const removed = await cli('mcp', 'remove', 'linear', '--hub', 'tickets', '--json');
        exits(removed, 0);
        assert.deepEqual(json(removed), { store: json(removed).store, hub: 'tickets', name: 'linear', removed: true });
        assert.deepEqual(await servers('tickets'), []);
      });

      it("refuses bad server options with exit 2, in the hub's own words, and stores nothing", async () => {
        const cases: [string[], RegExp][] = [
          [['mcp', 'add', 'x'], /either --url URL .* or --command CMD/],
          [['mcp', 'add', 'x', '--url', 'https://a.example', '--command', 'b'], /not both/],
          [
            ['mcp', 'add', 'bad__name', '--url', 'https://a.example'],
            /MCP server name "bad__name" \(hub "mcp"\) is not 1 to 55 letters/,
          ],
          [['mcp', 'add', 'x', '--url', 'ftp://a.example'], /http\.url must be http: or https:/],
          [
            ['mcp', 'add', 'x', '--url', 'https://a.example', '--credential', 'not a name'],
            /credential names a secret/,
          ],
          [['mcp', 'add', 'x', '--url', 'https://a.example', '--arg', 'y'], /--arg and --cwd go with --command/],
          [
            ['mcp', 'add', 'x', '--url', 'https://a.example', '--timeout-ms', 'soon'],
            /--timeout-ms must be a whole number of milliseconds/,
          ],
          [
            ['mcp', 'add', 'x', '--url', 'https://a.example', '--timeout-ms', '0'],
            /timeoutMs is a whole number of milliseconds above 0/,
          ],
          [
            ['mcp', 'add', 'x', '--url', 'https://a.example', '--hub', 'no hub!'],
            /MCP hub name "no hub!" must be 1 to 64/,
          ],
        ];
        for (const [args, message] of cases) {
          const result = await cli(...args);
          exits(result, 2);
          assert.match(result.stderr, message);
        }
        assert.deepEqual(await servers(), []);
      });

      it('answers removing a server that is not there with exit 3', async () => {
        const result = await cli('mcp', 'remove', 'ghost');
        exits(result, 3);
        assert.match(result.stderr, /Hub "mcp" has no runtime MCP server "ghost".*wardrik mcp list --hub mcp/);
      });
    });
  });
}
