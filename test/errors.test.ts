import 'reflect-metadata';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { container } from 'tsyringe';
import {
  ConfigurationError,
  ConflictError,
  defineTool,
  getPrivate,
  MemoryStore,
  park,
  putPrivate,
  Tokens,
  Tool,
  ToolResult,
  UsageError,
  Wardrik,
  WardrikError,
  type ConflictReason,
  type ContentPart,
  type JournalWrite,
  type LogLevel,
  type ToolContext,
  type WardrikErrorCode,
} from '../src/index.js';
import { classify, ExitCode } from '../src/cli/errors.js';
import { JournalBatch } from '../src/runner/journal-batch.js';
import { scriptedModel } from '../src/testing/index.js';
import { wardrik } from './cli/helpers.js';
import { harness, inboxId } from './runner/helpers.js';
import { harness as mcpHarness, stdio } from './mcp/helpers.js';
import { appendStep } from '../src/store/journal-writes.js';

/** Asserts that `error` is a `type` with `code`, and returns it. */
function isA<T extends WardrikError>(
  error: unknown,
  type: abstract new (...args: never) => T,
  code: WardrikErrorCode,
): T {
  assert.ok(error instanceof type, `expected a ${type.name}, got ${String(error)}`);
  assert.equal(error.code, code);
  assert.equal(error.name, type.name);
  return error;
}

/** What `run` threw, or fails. */
function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  assert.fail('it did not throw');
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  assert.fail('it did not reject');
}

/** The conflict `promise` rejects with, checked to be a `ConflictError` of `reason` with code `conflict`. */
async function conflict(promise: Promise<unknown>, reason: ConflictReason): Promise<ConflictError> {
  const error = isA(await rejection(promise), ConflictError, 'conflict');
  assert.equal(error.reason, reason, error.message);
  assert.ok(error.is(reason));
  return error;
}

describe('Errors users can act on', () => {
  describe('a Wardrik function called the wrong way throws a UsageError', () => {
    it('from agent.send with an empty text, naming the agent', async () => {
      const wardrik = await Wardrik.create({ store: 'memory:', recoverMs: Infinity });
      try {
        const agent = wardrik.startAgent({ id: 'support', model: scriptedModel([{ text: 'Hi.' }]), tools: [] });
        const error = isA(await rejection(agent.send('')), UsageError, 'usage');
        assert.match(
          error.message,
          /agent\.send\(text\) of agent "support" needs the user's text .* got an empty string/,
        );
      } finally {
        await wardrik.close();
      }
    });

    it("from a tool's ctx.cost, ctx.measure and ctx.progress with a negative amount, and ctx.log with an unknown level", async () => {
      const misuses: Record<string, (ctx: ToolContext) => void> = {
        cost: (ctx) => ctx.cost(-1),
        measure: (ctx) => ctx.measure('tokens', Number.NaN),
        progress: (ctx) => ctx.progress(-1),
        log: (ctx) => ctx.log('loud' as LogLevel, 'x'),
      };
      const h = await harness(
        Object.entries(misuses).map(([name, misuse]) =>
          defineTool({
            name,
            description: 'd',
            annotations: { readOnly: true },
            run: (_args: unknown, ctx: ToolContext) => {
              const error = thrown(() => misuse(ctx));
              return { name: (error as Error).name, code: (error as WardrikError).code };
            },
          }),
        ),
      );
      try {
        for (const name of Object.keys(misuses)) {
          const answer = await h.call(name);
          assert.deepEqual(
            answer.status === 'ok' ? answer.output : answer,
            { name: 'UsageError', code: 'usage' },
            name,
          );
        }
      } finally {
        await h.close();
      }
    });

    it('fails the call of a tool that lets it escape, with the message for the model', async () => {
      const h = await harness([
        defineTool({
          name: 'paid',
          description: 'd',
          annotations: { readOnly: true },
          run: (_args: unknown, ctx: ToolContext) => ctx.cost(-1),
        }),
      ]);
      try {
        const answer = await h.call('paid');
        assert.equal(answer.status, 'error');
        assert.equal(answer.status === 'error' ? answer.code : undefined, 'failed');
        assert.match(answer.status === 'error' ? answer.message : '', /cost\(usd\) takes a finite number/);
      } finally {
        await h.close();
      }
    });

    it('from park without a reason', () => {
      isA(
        thrown(() => park('')),
        UsageError,
        'usage',
      );
      isA(
        thrown(() => park(undefined as never)),
        UsageError,
        'usage',
      );
    });

    it('from a ToolResult whose content is not a list, or holds a part that is not MCP content', () => {
      const notAList = isA(
        thrown(() => new ToolResult('x', { content: 'text' as never })),
        UsageError,
        'usage',
      );
      assert.match(notAList.message, /list of MCP content parts.*got string/);
      isA(
        thrown(() => new ToolResult('x', { content: [{ type: 'text', text: 'a' }, { type: 'video' } as never] })),
        UsageError,
        'usage',
      );
      assert.ok(new ToolResult(undefined, { content: [{ type: 'text', text: 'ok' }] as ContentPart[] }));
    });

    it('from getPrivate and putPrivate with a key that is not a symbol or a class', () => {
      const tool = defineTool({ name: 'greet', description: 'd', run: () => 'hi' });
      const get = isA(
        thrown(() => getPrivate(tool, 'mine' as never)),
        UsageError,
        'usage',
      );
      assert.match(get.message, /got the string "mine"/);
      isA(
        thrown(() => putPrivate(tool, 'mine' as never, 1)),
        UsageError,
        'usage',
      );
      assert.equal(getPrivate(putPrivate(tool, Symbol.for('wardrik-test'), 1), Symbol.for('wardrik-test')), 1);
    });
  });

  describe('a wrong set-up throws a ConfigurationError', () => {
    it('from @Tool on a symbol-named method, naming the decorator', () => {
      const key = Symbol('find');
      const error = isA(
        thrown(() => Tool({ description: 'd' })({}, key, { value: () => undefined })),
        ConfigurationError,
        'configuration',
      );
      assert.match(error.message, /@Tool cannot be used on the symbol-named member Symbol\(find\)/);
    });

    it('from scriptedModel given neither steps nor a function, and from a script that runs out', async () => {
      isA(
        thrown(() => scriptedModel(42 as never)),
        ConfigurationError,
        'configuration',
      );
      const model = scriptedModel([]);
      const prompt = [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'hi' }] }];
      isA(await rejection(model.doGenerate({ prompt })), ConfigurationError, 'configuration');
    });
  });

  describe('a conflict says which one in its reason, with the ids involved', () => {
    async function desk(policy: { approvalTtlMs?: number } = {}) {
      const clock = { at: 1_000_000, now: () => clock.at };
      const app = container.createChildContainer();
      app.register(Tokens.Clock, { useValue: clock });
      const h = await harness(
        [
          defineTool({ name: 'refund', description: 'd', annotations: { idempotent: true }, run: () => 'refunded' }),
          defineTool({ name: 'escalate', description: 'd', annotations: { readOnly: true }, run: () => park('pick') }),
        ],
        { container: app, policy },
      );
      return { h, clock };
    }

    it('already_answered: who answered the item, how and when', async () => {
      const { h, clock } = await desk();
      try {
        const id = inboxId(await h.call('refund'));
        await h.wardrik.inbox.approve(id, { by: 'dana' });
        const error = await conflict(h.wardrik.inbox.deny(id, { reason: 'no', by: 'sam' }), 'already_answered');
        assert.deepEqual(error.data, { item: id, status: 'approved', by: 'dana', answeredAt: clock.at });
      } finally {
        await h.close();
      }
    });

    it('stale_digest: the digest given and the one the call has', async () => {
      const { h } = await desk();
      try {
        const id = inboxId(await h.call('refund'));
        const item = (await h.wardrik.inbox.get(id))!;
        const error = await conflict(h.wardrik.inbox.approve(id, { digest: 'a'.repeat(64) }), 'stale_digest');
        assert.deepEqual(error.data, { item: id, digest: 'a'.repeat(64), expected: item.digest });
      } finally {
        await h.close();
      }
    });

    it('wrong_kind: approving a park, answering an approval', async () => {
      const { h } = await desk();
      try {
        const parked = inboxId(await h.call('escalate'));
        const approval = inboxId(await h.call('refund'));
        const approving = await conflict(h.wardrik.inbox.approve(parked), 'wrong_kind');
        assert.deepEqual(approving.data, { item: parked, kind: 'park' });
        const answering = await conflict(h.wardrik.inbox.answer(approval, 1), 'wrong_kind');
        assert.deepEqual(answering.data, { item: approval, kind: 'approval' });
      } finally {
        await h.close();
      }
    });

    it('expired: the item and the wait it outlived', async () => {
      const { h, clock } = await desk({ approvalTtlMs: 1_000 });
      try {
        const id = inboxId(await h.call('refund'));
        clock.at += 1_000;
        const error = await conflict(h.wardrik.inbox.approve(id), 'expired');
        assert.deepEqual(error.data, { item: id, ttlMs: 1_000 });
      } finally {
        await h.close();
      }
    });

    it('not_offered: changed arguments for a tool this node does not offer, with no schema kept', async () => {
      const { h } = await desk();
      const store = h.wardrik.container.resolve(Tokens.Store);
      try {
        const id = inboxId(await h.call('refund'));
        const item = (await store.getInboxItem(id))!;
        const { inputSchema: _schema, ...unchecked } = item;
        await store.updateInboxItem({ ...unchecked, tool: 'gone/refund' }, 'pending');
        const error = await conflict(
          h.wardrik.inbox.approve(id, { digest: item.digest, arguments: { cents: 1 } }),
          'not_offered',
        );
        assert.deepEqual(error.data, { item: id, tool: 'gone/refund' });
      } finally {
        await h.close();
      }
    });

    it('missing_detail: a question item that holds no question', async () => {
      const { h } = await desk();
      const store = h.wardrik.container.resolve(Tokens.Store);
      try {
        const id = inboxId(await h.call('escalate'));
        const item = (await store.getInboxItem(id))!;
        await store.updateInboxItem({ ...item, kind: 'question', detail: undefined }, 'pending');
        const error = await conflict(h.wardrik.inbox.answer(id, { action: 'accept' }), 'missing_detail');
        assert.deepEqual(error.data, { item: id, kind: 'question' });
      } finally {
        await h.close();
      }
    });

    /** A memory store that refuses the first write of `refuse` it is asked for. */
    class RefusingStore extends MemoryStore {
      constructor(private refuse: 'lease' | 'turn' | undefined) {
        super();
      }

      override async writeJournal(writes: readonly JournalWrite[]): Promise<boolean[]> {
        const results = await super.writeJournal(writes);
        const refuse = this.refuse;
        if (refuse === undefined) return results;
        const at = writes.findIndex((write) => refuse in write);
        if (at < 0) return results;
        this.refuse = undefined;
        return results.map((ok, i) => (i === at ? false : ok));
      }
    }

    for (const [refuse, reason] of [
      ['lease', 'busy'],
      ['turn', 'run_exists'],
    ] as const) {
      it(`${reason}: agent.send when the store refuses the new turn's ${refuse}, naming the run`, async () => {
        const wardrik = await Wardrik.create({ store: new RefusingStore(refuse), recoverMs: Infinity });
        try {
          const agent = wardrik.startAgent({ id: 'a', model: scriptedModel([{ text: 'Hi.' }]), tools: [] });
          const error = await conflict(agent.send('hello'), reason);
          assert.match((error.data as { run: string }).run, /\S/);
          assert.ok(error.message.includes((error.data as { run: string }).run));
        } finally {
          await wardrik.close();
        }
      });
    }

    it("taken_over: another node wrote the run's step first", async () => {
      const store = new MemoryStore();
      const step = { run: 'r', index: 0, data: { kind: 'model' }, createdAt: 1 };
      assert.equal(await appendStep(store, step), true);
      const batch = new JournalBatch(store);
      batch.hold({ step });
      const call = { run: 'r', call: 'c1', agent: 'a', tool: 't/x', arguments: {}, idempotencyKey: 'k' };
      const write = batch.write([
        { call: { ...call, state: 'started', attempt: 1, updatedAt: 1 }, expected: undefined },
      ]);
      const error = await conflict(
        Promise.resolve().then(() => write),
        'taken_over',
      );
      assert.deepEqual(error.data, { run: 'r', step: 0 });
    });

    it('configured_server and name_taken: what an MCP hub cannot add or remove at runtime', async () => {
      const h = await mcpHarness(
        { servers: { fixed: { transport: stdio() } } },
        { tools: { shop: [defineTool({ name: 'ping', description: 'd', run: () => 'pong' })] } },
      );
      try {
        const removing = await conflict(h.hub().remove('fixed'), 'configured_server');
        assert.deepEqual(removing.data, { hub: 'mcp', server: 'fixed' });
        await conflict(h.hub().add('fixed', { transport: stdio() }), 'configured_server');
        const taken = await conflict(h.hub().add('shop', { transport: stdio() }), 'name_taken');
        assert.deepEqual(taken.data, { hub: 'mcp', server: 'shop', owner: 'tools.shop' });
      } finally {
        await h.close();
      }
    });

    it('checks the data against the reason when one is made', () => {
      // @ts-expect-error: a `busy` conflict names a run, not an item.
      const wrong = new ConflictError('busy', { item: 'x' }, 'm');
      assert.equal(wrong.reason, 'busy');
      const right = new ConflictError('busy', { run: 'r' }, 'Run "r" is leased by another node; send again.');
      assert.ok(right.is('busy'));
      assert.equal(right.is('already_answered'), false);
      assert.equal(right.data.run, 'r');
      assert.ok(Object.isFrozen(right.data));
    });
  });

  describe('the wardrik command', () => {
    it('tells a person who approves or answers an item of another kind which command answers it, with exit 2', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'wardrik-errors-'));
      const url = `sqlite:${join(dir, 'wardrik.db')}`;
      try {
        const node = await Wardrik.create({
          store: url,
          recoverMs: Infinity,
          tools: { t: [defineTool({ name: 'ask', description: 'd', run: () => park('pick') })] },
        });
        const store = node.container.resolve(Tokens.Store);
        const ids: Record<'question' | 'authorize' | 'tool_change', string> = {
          question: '',
          authorize: '',
          tool_change: '',
        };
        for (const kind of Object.keys(ids) as (keyof typeof ids)[]) {
          const answer = await node.runner.run({ agent: 'a', run: `run-${kind}`, call: { id: 'c1', name: 't__ask' } });
          ids[kind] = inboxId(answer);
          const item = (await store.getInboxItem(ids[kind]))!;
          assert.equal(await store.updateInboxItem({ ...item, kind }, 'pending'), true);
        }
        await node.close();
        const cli = (...args: string[]) => wardrik(['--store', url, ...args]);
        const cases: [string[], RegExp][] = [
          [
            ['approve', ids.question],
            /a question an MCP server asks, not an approval.*wardrik answer .* --json '\{"action":"accept"/,
          ],
          [['approve', ids.authorize], /a sign-in an MCP server needs, not an approval.*Open its URL/],
          [['answer', ids.authorize, '--json', '1'], /asks a person to sign in, not for a value: open its URL/],
          [['answer', ids.tool_change, '--json', '1'], /asks for approval, not for a value: wardrik approve/],
        ];
        for (const [args, words] of cases) {
          const result = await cli(...args);
          assert.equal(result.code, ExitCode.usage, `${args.join(' ')}: ${result.stderr}`);
          assert.match(result.stderr, words);
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('exits 2 for a conflict of the wrong kind and 4 for every other, from the reason alone', () => {
      const reasons: Record<ConflictReason, number> = {
        wrong_kind: ExitCode.usage,
        already_answered: ExitCode.conflict,
        already_approved: ExitCode.conflict,
        expired: ExitCode.conflict,
        stale_digest: ExitCode.conflict,
        not_offered: ExitCode.conflict,
        missing_detail: ExitCode.conflict,
        busy: ExitCode.conflict,
        run_exists: ExitCode.conflict,
        taken_over: ExitCode.conflict,
        stopped: ExitCode.conflict,
        configured_server: ExitCode.conflict,
        name_taken: ExitCode.conflict,
      };
      for (const [reason, exitCode] of Object.entries(reasons)) {
        const error = new (ConflictError as new (reason: string, data: object, message: string) => ConflictError)(
          reason,
          {},
          'm',
        );
        assert.deepEqual(classify(error), { exitCode, code: exitCode === 2 ? 'usage' : 'conflict' }, reason);
      }
    });

    it('exits 2 for a UsageError, which is a wrong command, not a bug', () => {
      assert.deepEqual(classify(new UsageError('x')), { exitCode: ExitCode.usage, code: 'usage' });
    });
  });
});
