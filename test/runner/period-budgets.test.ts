import 'reflect-metadata';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import {
  defineTool,
  openStore,
  Wardrik,
  type BudgetWarningEvent,
  type Store,
  type ToolAnswer,
  type ToolContext,
  type ToolDefinition,
} from '../../src/index.js';
import { manualTime, scriptedModel } from '../../src/testing/index.js';
import { scratchStores } from '../crash/scratch-stores.js';
import { manualTimeContainer } from '../manual-time-container.js';
import { errorCode } from './helpers.js';

/**
 * Budgets by period (`startAgent({ budget: { usd, per, timeZone, warnAt } })`, issue 33 point 6): spend
 * in the current day or month counts against the limit across nodes, a new period starts afresh, the
 * period is the time zone's, and the warning at `warnAt` is emitted once however many calls cross it.
 */
const { stores } = scratchStores('period-budgets');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A $0.10 search; `declared` says so up front (`maxCostUsd`), else its cost is learnt from its first call. */
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

async function node(store: Store, declared: boolean, container?: ReturnType<typeof manualTimeContainer>) {
  return Wardrik.create({
    store,
    tools: { t: [searchTool(declared)] },
    policy: { rules: [{ match: 't/*', action: 'allow' }] },
    recoverMs: Infinity,
    ...(container === undefined ? {} : { container }),
  });
}

/** A call of the agent's, under its budget of `usd` a period (as its turns send it). */
function call(w: Wardrik, agent: string, run: string, usd = 1): Promise<ToolAnswer> {
  return w.runner.run({ agent, run, call: { id: 'c1', name: 't__search' }, budgetUsd: usd });
}

for (const [name, url] of stores) {
  describe(`a budget by day on two nodes sharing ${name}`, () => {
    for (const declared of [true, false]) {
      it(`spends at most ${declared ? '$1' : 'one call past $1'} a day and warns once, with 100 concurrent calls of a tool that ${declared ? 'declares $0.10' : 'declares nothing'}`, async () => {
        const at = url();
        const [a, b] = [await node(await openStore(at), declared), await node(await openStore(at), declared)];
        const agent = `agent-${randomUUID().slice(0, 8)}`;
        const warnings: BudgetWarningEvent[] = [];
        for (const w of [a, b]) {
          w.startAgent({
            id: agent,
            model: scriptedModel([]),
            tools: ['t/*'],
            budget: { usd: 1, per: 'day', warnAt: 0.5 },
          });
          w.events$.subscribe((e) => e.type === 'budget.warning' && warnings.push(e));
        }
        const answers = await Promise.all(
          Array.from({ length: 100 }, (_, i) => call(i % 2 === 0 ? a : b, agent, `run-${i}`)),
        );
        const ok = answers.filter((answer) => answer.status === 'ok').length;
        assert.equal(answers.filter((answer) => errorCode(answer) === 'budget_spent').length, 100 - ok);
        // The agent's whole-life spend is kept too: it is what this day's calls spent.
        const spent = (await (await openStore(at)).getSpend(agent)) / 1e6;
        assert.equal(Math.round(spent * 10), ok);
        if (declared) assert.equal(ok, 10, `${ok} calls ran under a $1 day of $0.10 calls`);
        else assert.ok(ok >= 10 && ok <= 11, `${ok} calls ran under a $1 day of $0.10 calls`);
        assert.equal(warnings.length, 1, `${warnings.length} budget.warning events`);
        const [warning] = warnings;
        assert.equal(warning!.agent, agent);
        assert.equal(warning!.limitUsd, 1);
        assert.equal(warning!.warnAt, 0.5);
        assert.equal(warning!.period, new Date().toISOString().slice(0, 10));
        assert.ok(warning!.spentUsd >= 0.5, `warned at $${warning!.spentUsd}`);
        await a.close();
        await b.close();
      });
    }
  });
}

describe('a budget by period and the clock', () => {
  const at = stores[0]![1];

  it('starts afresh when a new day begins, and warns again in it', async () => {
    const time = manualTime(Date.parse('2026-12-04T10:00:00Z'));
    const w = await node(await openStore(at()), true, manualTimeContainer(time));
    const warnings: BudgetWarningEvent[] = [];
    w.events$.subscribe((e) => e.type === 'budget.warning' && warnings.push(e));
    w.startAgent({ id: 'a', model: scriptedModel([]), tools: ['t/*'], budget: { usd: 0.3, per: 'day', warnAt: 1 } });
    const statuses = async (n: number, prefix: string) => {
      const out: string[] = [];
      for (let i = 0; i < n; i++) out.push(errorCode(await call(w, 'a', `${prefix}-${i}`, 0.3)) ?? 'ok');
      return out;
    };
    assert.deepEqual(await statuses(4, 'd1'), ['ok', 'ok', 'ok', 'budget_spent']);
    await time.advance(13 * 3600_000); // 23:00 UTC, the same day
    assert.deepEqual(await statuses(1, 'd1-late'), ['budget_spent']);
    await time.advance(3600_000); // midnight UTC: a new day
    assert.deepEqual(await statuses(4, 'd2'), ['ok', 'ok', 'ok', 'budget_spent']);
    assert.deepEqual(
      warnings.map((e) => e.period),
      ['2026-12-04', '2026-12-05'],
    );
    await w.close();
  });

  it('counts a call at 23:30 UTC to the next day in Asia/Tokyo, whose day begins at 15:00 UTC', async () => {
    const time = manualTime(Date.parse('2026-12-04T23:30:00Z'));
    const w = await node(await openStore(at()), true, manualTimeContainer(time));
    const warnings: BudgetWarningEvent[] = [];
    w.events$.subscribe((e) => e.type === 'budget.warning' && warnings.push(e));
    w.startAgent({
      id: 'tokyo',
      model: scriptedModel([]),
      tools: ['t/*'],
      budget: { usd: 0.1, per: 'day', timeZone: 'Asia/Tokyo', warnAt: 1 },
    });
    w.startAgent({ id: 'utc', model: scriptedModel([]), tools: ['t/*'], budget: { usd: 0.1, per: 'day' } });
    assert.equal((await call(w, 'tokyo', 't1', 0.1)).status, 'ok');
    assert.equal((await call(w, 'utc', 'u1', 0.1)).status, 'ok');
    assert.equal(warnings[0]?.period, '2026-12-05', 'the Tokyo day of 23:30 UTC on the 4th');
    await time.advance(31 * 60_000); // 00:01 UTC on the 5th: a new day in UTC, still the 5th in Tokyo
    assert.equal((await call(w, 'utc', 'u2', 0.1)).status, 'ok');
    assert.equal(errorCode(await call(w, 'tokyo', 't2', 0.1)), 'budget_spent');
    await time.advance(15 * 3600_000); // 15:01 UTC: the 6th in Tokyo
    assert.equal((await call(w, 'tokyo', 't3', 0.1)).status, 'ok');
    await w.close();
  });

  it('counts a month in its time zone', async () => {
    const time = manualTime(Date.parse('2026-11-30T22:30:00Z')); // 23:30 on 30 November in Berlin
    const w = await node(await openStore(at()), true, manualTimeContainer(time));
    w.startAgent({
      id: 'm',
      model: scriptedModel([]),
      tools: ['t/*'],
      budget: { usd: 0.1, per: 'month', timeZone: 'Europe/Berlin' },
    });
    assert.equal((await call(w, 'm', 'r1', 0.1)).status, 'ok');
    await time.advance(20 * 60_000); // 22:50 UTC, still November in Berlin
    assert.equal(errorCode(await call(w, 'm', 'r2', 0.1)), 'budget_spent');
    await time.advance(20 * 60_000); // 23:10 UTC: 00:10 on 1 December in Berlin
    assert.equal((await call(w, 'm', 'r3', 0.1)).status, 'ok');
    await time.advance(10 * 24 * 3600_000); // still December
    assert.equal(errorCode(await call(w, 'm', 'r4', 0.1)), 'budget_spent');
    await w.close();
  });
});
