import 'reflect-metadata';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import {
  defineTool,
  MemoryStore,
  openStore,
  Wardrik,
  type CostEvent,
  type Store,
  type ToolAnswer,
  type ToolContext,
  type ToolDefinition,
} from '../../src/index.js';
import { scratchStores } from '../crash/scratch-stores.js';
import { errorCode } from './helpers.js';

/**
 * Guarantees that must hold when many calls, and several nodes sharing one store, happen at once
 * (issue 13, points 3 to 5): a remembered key runs once, a budget holds, money adds up exactly.
 */
const { stores } = scratchStores('shared');

/** Where the nodes of one test keep their data: each node opens its own connection to it. */
const places: [string, () => () => Promise<Store>][] = stores.map(([name, url]) => [
  name,
  () => {
    const at = url();
    return () => openStore(at);
  },
]);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function node(store: Store, tools: ToolDefinition[]): Promise<Wardrik> {
  return Wardrik.create({
    store,
    tools: { t: tools },
    policy: { rules: [{ match: 't/*', action: 'allow' }] },
    recoverMs: Infinity,
  });
}

/** A refund API without keys of its own: each run makes a new refund id. */
function refundTool(ran: string[], started?: () => void): ToolDefinition {
  return defineTool({
    name: 'refund',
    description: 'Refunds.',
    input: { type: 'object', properties: { order: { type: 'number' } }, additionalProperties: false },
    annotations: { idempotent: true, remember: true },
    run: async (_a, ctx: ToolContext) => {
      const id = `re_${randomUUID().slice(0, 8)}`;
      ran.push(id);
      started?.();
      await sleep(50);
      ctx.cost(0);
      return id;
    },
  });
}

/** A paid search at $0.10 a call: `declared` says so with `maxCostUsd`, otherwise it declares nothing. */
function searchTool(declared: boolean): ToolDefinition {
  return defineTool({
    name: 'search',
    description: 'Searches.',
    annotations: { readOnly: true, ...(declared ? { maxCostUsd: 0.1 } : {}) },
    run: async (_a, ctx: ToolContext) => {
      await sleep(5);
      ctx.cost(0.1);
      return 'found';
    },
  });
}

for (const [name, place] of places) {
  describe(`two nodes sharing ${name}`, () => {
    it('run a remembered key once and hand both callers the same result', async () => {
      const open = place();
      const ran: string[] = [];
      const [a, b] = [await node(await open(), [refundTool(ran)]), await node(await open(), [refundTool(ran)])];
      const call = (w: Wardrik, run: string): Promise<ToolAnswer> =>
        w.runner.run({
          agent: 'a',
          run,
          call: { id: 'c1', name: 't__refund', arguments: { order: 7 } },
          idempotencyKey: 'refund-order-7',
        });
      const answers = await Promise.all([call(a, 'run-a'), call(b, 'run-b'), call(a, 'run-c'), call(b, 'run-d')]);
      assert.equal(ran.length, 1, `the refund ran ${ran.length} times`);
      assert.deepEqual(
        new Set(answers.map((answer) => (answer.status === 'ok' ? answer.output : answer.status))),
        new Set([ran[0]]),
      );
      await a.close();
      await b.close();
    });

    it('answer a conflict, running nothing, for a remembered key reused with other arguments meanwhile', async () => {
      const open = place();
      const ran: string[] = [];
      let started!: () => void;
      const running = new Promise<void>((resolve) => (started = resolve));
      const [a, b] = [
        await node(await open(), [refundTool(ran, started)]),
        await node(await open(), [refundTool(ran)]),
      ];
      const [first, second] = await Promise.all([
        a.runner.run({
          agent: 'a',
          run: 'run-a',
          call: { id: 'c1', name: 't__refund', arguments: { order: 7 } },
          idempotencyKey: 'k-1',
        }),
        // Sent while the first runs, once its refund has started.
        running.then(() =>
          b.runner.run({
            agent: 'a',
            run: 'run-b',
            call: { id: 'c1', name: 't__refund', arguments: { order: 8 } },
            idempotencyKey: 'k-1',
          }),
        ),
      ]);
      assert.equal(first.status, 'ok');
      assert.equal(errorCode(second), 'conflict');
      assert.equal(ran.length, 1);
      await a.close();
      await b.close();
    });

    it('hold a $1 budget under 100 concurrent $0.10 calls of a tool that declares nothing, 50 on each node', async () => {
      const open = place();
      const [a, b] = [await node(await open(), [searchTool(false)]), await node(await open(), [searchTool(false)])];
      const agent = `agent-${randomUUID()}`;
      const answers = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          (i % 2 === 0 ? a : b).runner.run({
            agent,
            run: `run-${i}`,
            call: { id: 'c1', name: 't__search' },
            budgetUsd: 1,
          }),
        ),
      );
      const spent = (await (await open()).getSpend(agent)) / 1e6;
      const ok = answers.filter((answer) => answer.status === 'ok').length;
      assert.ok(spent <= 1.1, `spent $${spent}, more than one call past the $1 budget`);
      assert.ok(spent >= 1, `spent $${spent}: the budget was not used`);
      assert.equal(ok, Math.round(spent * 10));
      assert.equal(answers.filter((answer) => errorCode(answer) === 'budget_spent').length, 100 - ok);
      await a.close();
      await b.close();
    });
  });
}

describe('a budget under concurrent calls, in one process', () => {
  for (const declared of [true, false]) {
    it(`spends at most ${declared ? 'the budget' : 'one call past it'} with 100 concurrent $0.10 calls of a tool that ${declared ? 'declares $0.10' : 'declares nothing'}`, async () => {
      const store = new MemoryStore();
      const wardrik = await node(store, [searchTool(declared)]);
      const answers = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          wardrik.runner.run({ agent: 'a', run: `run-${i}`, call: { id: 'c1', name: 't__search' }, budgetUsd: 1 }),
        ),
      );
      const spent = await store.getSpend('a');
      assert.ok(spent <= (declared ? 1_000_000 : 1_100_000), `spent ${spent / 1e6}`);
      assert.equal(answers.filter((answer) => answer.status === 'ok').length, spent / 100_000);
      await wardrik.close();
    });
  }

  it('takes exactly ten $0.10 calls under a $1 budget, one after another, and reports exact totals', async () => {
    const store = new MemoryStore();
    const wardrik = await node(store, [searchTool(false)]);
    const totals: number[] = [];
    wardrik.costs$.subscribe((event: CostEvent) => totals.push(event.totalMicroUsd));
    const answers: ToolAnswer[] = [];
    for (let i = 0; i < 11; i++)
      answers.push(
        await wardrik.runner.run({ agent: 'a', run: 'run-1', call: { id: `c${i}`, name: 't__search' }, budgetUsd: 1 }),
      );
    assert.deepEqual(
      answers.map((answer) => answer.status),
      [...Array(10).fill('ok'), 'error'],
    );
    assert.equal(errorCode(answers[10]!), 'budget_spent');
    assert.equal(totals.at(-1), 1_000_000);
    assert.equal(await store.getSpend('a'), 1_000_000);
    await wardrik.close();
  });

  it('holds the budget for an approved call too', async () => {
    const store = new MemoryStore();
    const wardrik = await Wardrik.create({
      store,
      tools: { t: [searchTool(true)] },
      policy: { rules: [{ match: 't/*', action: 'ask' }] },
      recoverMs: Infinity,
    });
    const parked = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        wardrik.runner.run({ agent: 'a', run: `run-${i}`, call: { id: 'c1', name: 't__search' }, budgetUsd: 1 }),
      ),
    );
    const answers = await Promise.all(
      parked.map((answer) => wardrik.inbox.approve(answer.status === 'parked' ? answer.inboxId! : '')),
    );
    assert.equal(answers.filter((answer) => answer.status === 'ok').length, 10);
    assert.equal(await store.getSpend('a'), 1_000_000);
    await wardrik.close();
  });
});
