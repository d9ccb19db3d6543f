import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { addLabels, appendStep, writeCall, writeTurn } from '../store/journal-writes.js';
import type { Pruning, Store, TurnRecord } from '../store/store.js';
import { call, inboxItem, mcpServer, ok, turn, type ContractContext } from './store-contract-kit.js';

/** The `Pruning` and `McpServerRecords` capabilities of the Store contract, for a store that claims them. */
export function recordsContract({ withFullStore, lease, has }: ContractContext): void {
  if (has('Pruning')) {
    describe('prune, retention of finished runs', () => {
      // Times well before every other test's, so that what this suite checks is its own; a pass may
      // also take other tests' old runs, so counts are at least what these tests made.
      const cutoff = 50_000;
      const old = 10_000;

      async function finishedRun(store: Store, over: Partial<TurnRecord> = {}) {
        const t = turn({ status: 'done', createdAt: old, updatedAt: old, ...over });
        await writeTurn(store, t, undefined);
        await appendStep(store, { run: t.run, index: 0, data: 'model step', createdAt: old });
        const item = inboxItem({ run: t.run, call: 'c1', status: 'approved', createdAt: old, answeredAt: old });
        await store.putInboxItem(item);
        await writeCall(
          store,
          call({ run: t.run, call: 'c1', state: 'succeeded', answer: ok(1), updatedAt: old }),
          undefined,
        );
        await addLabels(store, t.run, ['outside']);
        await lease(store, t.run, 'node-a', old, 100);
        return { run: t.run, item };
      }

      async function gone(store: Store, run: string, item?: string) {
        assert.equal(await store.getTurn(run), undefined);
        assert.deepEqual(await store.listSteps(run), []);
        assert.deepEqual(await store.listCalls({ run }), []);
        assert.deepEqual(await store.getLabels(run), []);
        if (item !== undefined) assert.equal(await store.getInboxItem(item), undefined);
      }

      async function drain(store: Pruning, options: { before: number; limit?: number }) {
        const passes = [];
        for (let report = await store.prune(options); ; report = await store.prune(options)) {
          passes.push(report);
          if (report.runs === 0 || passes.length > 1_000) return passes;
        }
      }

      it("deletes a finished run's turn, steps, calls, labels, answered inbox items and lease", () =>
        withFullStore(async (store) => {
          const { run, item } = await finishedRun(store);
          const report = await store.prune({ before: cutoff });
          assert.ok(
            report.runs >= 1 &&
              report.turns >= 1 &&
              report.steps >= 1 &&
              report.calls >= 1 &&
              report.labels >= 1 &&
              report.inbox >= 1,
            JSON.stringify(report),
          );
          await gone(store, run, item.id);
          assert.equal(await lease(store, run, 'node-b', cutoff, 100), true, 'the lease went with the run');
        }));

      it('deletes a run of calls only once every call is final', () =>
        withFullStore(async (store) => {
          const run = `run-${randomUUID()}`;
          await writeCall(
            store,
            call({ run, call: 'c1', state: 'succeeded', answer: ok(1), updatedAt: old }),
            undefined,
          );
          await writeCall(store, call({ run, call: 'c2', state: 'failed', updatedAt: old }), undefined);
          await drain(store, { before: cutoff });
          await gone(store, run);
        }));

      it('keeps parked and in-doubt runs, running turns, and runs written since the cutoff, however old they began', () =>
        withFullStore(async (store) => {
          const parked = turn({ status: 'parked', createdAt: 1, updatedAt: 1 });
          await writeTurn(store, parked, undefined);
          await writeCall(
            store,
            call({ run: parked.run, call: 'c1', state: 'parked', inboxId: 'i1', updatedAt: 1 }),
            undefined,
          );
          const pending = inboxItem({ run: parked.run, call: 'c1', createdAt: 1 });
          await store.putInboxItem(pending);
          // A finished turn whose call still waits: its run stays, and so does the answered item it waits on.
          const waiting = turn({ status: 'failed', createdAt: 1, updatedAt: 1 });
          await writeTurn(store, waiting, undefined);
          await writeCall(store, call({ run: waiting.run, call: 'c1', state: 'parked', updatedAt: 1 }), undefined);
          const approved = inboxItem({ run: waiting.run, call: 'c1', status: 'approved', createdAt: 1 });
          await store.putInboxItem(approved);
          // In doubt: a call of a run without a turn, parked for a person after a crash.
          const inDoubt = `run-${randomUUID()}`;
          await writeCall(
            store,
            call({ run: inDoubt, call: 'c1', state: 'succeeded', answer: ok(1), updatedAt: 1 }),
            undefined,
          );
          await writeCall(store, call({ run: inDoubt, call: 'c2', state: 'parked', updatedAt: 1 }), undefined);
          await store.putInboxItem(inboxItem({ run: inDoubt, call: 'c2', kind: 'in_doubt', createdAt: 1 }));
          const running = turn({ status: 'running', createdAt: 1, updatedAt: 1 });
          await writeTurn(store, running, undefined);
          const recent = await finishedRun(store, { updatedAt: cutoff + 1 });
          await drain(store, { before: cutoff });
          assert.equal((await store.getTurn(parked.run))?.status, 'parked');
          assert.equal((await store.getCall(parked.run, 'c1'))?.state, 'parked');
          assert.deepEqual(await store.getInboxItem(pending.id), pending);
          assert.equal((await store.getTurn(waiting.run))?.status, 'failed');
          assert.deepEqual(await store.getInboxItem(approved.id), approved);
          assert.equal((await store.listCalls({ run: inDoubt })).length, 2);
          assert.equal((await store.getTurn(running.run))?.status, 'running');
          assert.equal((await store.getTurn(recent.run))?.status, 'done');
          assert.equal((await store.listCalls({ run: recent.run })).length, 1);
        }));

      it('takes at most `limit` runs a pass', () =>
        withFullStore(async (store) => {
          const runs = [];
          for (let i = 0; i < 3; i++) runs.push((await finishedRun(store)).run);
          const passes = await drain(store, { before: cutoff, limit: 1 });
          assert.ok(passes.every((report) => report.runs <= 1));
          assert.ok(passes.length >= 4, 'three runs, one a pass, then an empty pass');
          for (const run of runs) await gone(store, run);
        }));

      it('on a dry run deletes nothing and counts what a pass would delete', () =>
        withFullStore(async (store) => {
          const { run, item } = await finishedRun(store);
          const dry = await store.prune({ before: cutoff, dryRun: true });
          assert.ok(dry.runs >= 1 && dry.calls >= 1 && dry.steps >= 1 && dry.inbox >= 1, JSON.stringify(dry));
          assert.equal((await store.getTurn(run))?.status, 'done');
          assert.deepEqual(await store.getInboxItem(item.id), item);
          assert.equal((await store.listSteps(run)).length, 1);
          assert.deepEqual(await store.prune({ before: cutoff }), dry);
          await gone(store, run, item.id);
        }));

      it("forgets a pruned turn in the agent's history", () =>
        withFullStore(async (store) => {
          const agent = `agent-${randomUUID()}`;
          const { run } = await finishedRun(store, { agent });
          const kept = turn({ agent, status: 'done', updatedAt: cutoff + 1 });
          await writeTurn(store, kept, undefined);
          assert.equal((await store.lastFinishedTurns(agent, 5)).length, 2);
          await drain(store, { before: cutoff });
          assert.deepEqual(
            (await store.lastFinishedTurns(agent, 5)).map((t) => t.run),
            [kept.run],
          );
          await gone(store, run);
        }));
    });
  }

  if (has('McpServerRecords')) {
    describe('runtime MCP servers', () => {
      it("lists a hub's servers sorted by name, whatever order they were added in", () =>
        withFullStore(async (store) => {
          const hub = `hub-${randomUUID()}`;
          for (const name of ['search', 'Billing', 'github', 'a-b', 'a_b'])
            await store.putMcpServer(mcpServer({ hub, name }));
          assert.deepEqual(
            (await store.listMcpServers(hub)).map((server) => server.name),
            ['Billing', 'a-b', 'a_b', 'github', 'search'],
          );
        }));

      it('replaces a server put again under the same name', () =>
        withFullStore(async (store) => {
          const hub = `hub-${randomUUID()}`;
          await store.putMcpServer(
            mcpServer({ hub, name: 'github', options: { url: 'http://127.0.0.1:1/mcp' }, updatedAt: 1 }),
          );
          const second = mcpServer({
            hub,
            name: 'github',
            options: { command: 'node', args: ['server.js'], credential: 'GITHUB' },
            updatedAt: 2,
          });
          await store.putMcpServer(second);
          assert.deepEqual(await store.listMcpServers(hub), [second]);
        }));

      it('deletes a server, answering true, and false when there was none', () =>
        withFullStore(async (store) => {
          const hub = `hub-${randomUUID()}`;
          const [a, b] = [mcpServer({ hub, name: 'a' }), mcpServer({ hub, name: 'b' })];
          await store.putMcpServer(a);
          await store.putMcpServer(b);
          assert.equal(await store.deleteMcpServer(hub, 'a'), true);
          assert.equal(await store.deleteMcpServer(hub, 'a'), false);
          assert.equal(await store.deleteMcpServer(hub, 'never'), false);
          assert.deepEqual(await store.listMcpServers(hub), [b]);
        }));

      it('keeps each hub apart', () =>
        withFullStore(async (store) => {
          const [one, two] = [`hub-${randomUUID()}`, `hub-${randomUUID()}`];
          const inOne = mcpServer({ hub: one, name: 'github', options: { in: 'one' } });
          const inTwo = mcpServer({ hub: two, name: 'github', options: { in: 'two' } });
          await store.putMcpServer(inOne);
          await store.putMcpServer(inTwo);
          assert.equal(await store.deleteMcpServer(one, 'github'), true);
          assert.deepEqual(await store.listMcpServers(one), []);
          assert.deepEqual(await store.listMcpServers(two), [inTwo]);
          assert.deepEqual(await store.listMcpServers(`hub-${randomUUID()}`), []);
        }));

      it('round-trips options as plain data', () =>
        withFullStore(async (store) => {
          const hub = `hub-${randomUUID()}`;
          const server = mcpServer({
            hub,
            name: 'files',
            options: {
              command: 'node',
              args: ['srv.js', '--root', '/tmp/Grüße 東京'],
              env: { LEVEL: '2' },
              timeoutMs: 1.5,
              headers: null,
            },
            updatedAt: 1_700_000_000_000.75,
          });
          await store.putMcpServer(server);
          assert.deepEqual(await store.listMcpServers(hub), [server]);
        }));
    });
  }
}
