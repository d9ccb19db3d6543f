import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import type {
  CallRecord,
  CallState,
  InboxRecord,
  JournalWrite,
  McpServerRecord,
  RememberedClaim,
  SpendHold,
  Store,
  TurnRecord,
} from '../../src/store/store.js';

/**
 * The store's clock, where run leases take their times (`Store.leaseRun`): `at(ms)` makes it read `ms`
 * from then on. Memory and SQLite take a clock; PostgreSQL reads its server's, so its suite moves the
 * leases' ends instead (see postgres-store.test.ts).
 */
export interface ContractClock {
  at(ms: number): Promise<void>;
}

export interface ContractOptions {
  /** The store keeps its data across `close()` and a new `makeStore()` (SQLite, PostgreSQL). */
  readonly durable: boolean;
  /** Its writes are synchronous, and it offers them as `sync` (memory, SQLite). */
  readonly synchronous: boolean;
  readonly clock: ContractClock;
}

/**
 * The behaviour every Store must have, run against each implementation. `makeStore` may return
 * stores that share data with earlier ones (one SQLite file, one PostgreSQL schema per test file):
 * each test uses its own run, agent and item ids, and reads lists only through them.
 */
export function storeContract(name: string, makeStore: () => Promise<Store>, options: ContractOptions): void {
  async function withStore(test: (store: Store) => Promise<void>): Promise<void> {
    const store = await makeStore();
    try {
      await test(store);
    } finally {
      await store.close();
    }
  }

  /** `store.leaseRun` with the store's clock at `now`. */
  async function lease(store: Store, run: string, node: string, now: number, ttlMs: number): Promise<boolean> {
    await options.clock.at(now);
    return store.leaseRun(run, node, ttlMs);
  }

  describe(`${name} (the Store contract)`, () => {
    describe('writeCall', () => {
      it('writes a first record only when the call has none (expected undefined)', () =>
        withStore(async (store) => {
          const first = call({ state: 'started' });
          assert.equal(await store.writeCall(first, undefined), true);
          assert.equal(await store.writeCall({ ...first, attempt: 2 }, undefined), false);
          assert.deepEqual(await store.getCall(first.run, first.call), first);
        }));

      it('moves a started call on only while it is still started', () =>
        withStore(async (store) => {
          const started = call({ state: 'started' });
          await store.writeCall(started, undefined);
          const done = { ...started, state: 'succeeded' as const, answer: ok('done'), updatedAt: 2 };
          assert.equal(await store.writeCall(done, 'parked'), false);
          assert.equal(await store.writeCall(done, 'started'), true);
          assert.equal(await store.writeCall({ ...done, state: 'failed' }, 'started'), false);
          assert.deepEqual(await store.getCall(started.run, started.call), done);
        }));

      it('moves a parked call on only while it is still parked', () =>
        withStore(async (store) => {
          const parked = call({ state: 'parked', inboxId: `inbox-${randomUUID()}` });
          await store.writeCall(parked, undefined);
          const running = { ...parked, state: 'started' as const, attempt: 1 };
          assert.equal(await store.writeCall(running, 'started'), false);
          assert.equal(await store.writeCall(running, 'parked'), true);
          assert.equal(await store.writeCall(running, 'parked'), false);
          assert.deepEqual(await store.getCall(parked.run, parked.call), running);
        }));

      it('refuses a compare-and-set on a call that does not exist', () =>
        withStore(async (store) => {
          const record = call({ state: 'succeeded' });
          assert.equal(await store.writeCall(record, 'started'), false);
          assert.equal(await store.getCall(record.run, record.call), undefined);
        }));

      it('lets exactly one of 10 concurrent first writes win', () =>
        withStore(async (store) => {
          const base = call({ state: 'started' });
          const results = await Promise.all(
            range(10).map((i) => store.writeCall({ ...base, agent: `agent-${i}` }, undefined)),
          );
          assert.equal(results.filter(Boolean).length, 1);
          const winner = results.indexOf(true);
          assert.equal((await store.getCall(base.run, base.call))?.agent, `agent-${winner}`);
        }));

      it('lets exactly one of 10 concurrent started-to-final writes win', () =>
        withStore(async (store) => {
          const base = call({ state: 'started' });
          await store.writeCall(base, undefined);
          const results = await Promise.all(
            range(10).map((i) =>
              store.writeCall({ ...base, state: i % 2 === 0 ? 'succeeded' : 'failed', answer: ok(i) }, 'started'),
            ),
          );
          assert.equal(results.filter(Boolean).length, 1);
          const winner = results.indexOf(true);
          assert.deepEqual((await store.getCall(base.run, base.call))?.answer, ok(winner));
        }));

      it('moves a started call to started again only when the attempt goes up', () =>
        withStore(async (store) => {
          const started = call({ state: 'started', attempt: 2 });
          await store.writeCall(started, undefined);
          assert.equal(await store.writeCall({ ...started, updatedAt: 5 }, 'started'), false, 'the same attempt');
          assert.equal(await store.writeCall({ ...started, attempt: 1 }, 'started'), false, 'a lower attempt');
          assert.equal(await store.writeCall({ ...started, attempt: 3 }, 'started'), true);
          assert.equal((await store.getCall(started.run, started.call))?.attempt, 3);
        }));

      it('lets exactly one of 10 concurrent writers of the same next attempt take a started call', () =>
        withStore(async (store) => {
          const base = call({ state: 'started', attempt: 1 });
          await store.writeCall(base, undefined);
          const results = await Promise.all(
            range(10).map((i) => store.writeCall({ ...base, attempt: 2, agent: `agent-${i}` }, 'started')),
          );
          assert.equal(results.filter(Boolean).length, 1);
          assert.equal((await store.getCall(base.run, base.call))?.agent, `agent-${results.indexOf(true)}`);
        }));

      it('answers undefined for a call never written', () =>
        withStore(async (store) => {
          assert.equal(await store.getCall(`run-${randomUUID()}`, 'c1'), undefined);
        }));
    });

    describe('listCalls', () => {
      it('lists the calls in one state, oldest updatedAt first', () =>
        withStore(async (store) => {
          const run = `run-${randomUUID()}`;
          // Written out of time order, with a tie (c2, c4) kept in the order first written.
          const times: Record<string, number> = { c1: 30, c2: 10, c3: 20, c4: 10, c5: 5 };
          for (const [id, updatedAt] of Object.entries(times)) {
            await store.writeCall(
              call({ run, call: id, state: id === 'c5' ? 'parked' : 'started', updatedAt }),
              undefined,
            );
          }
          const started = (await store.listCalls({ state: 'started' })).filter((record) => record.run === run);
          assert.deepEqual(
            started.map((record) => record.call),
            ['c2', 'c4', 'c3', 'c1'],
          );
          const parked = (await store.listCalls({ state: 'parked' })).filter((record) => record.run === run);
          assert.deepEqual(
            parked.map((record) => record.call),
            ['c5'],
          );
        }));

      it('keeps ties across runs in the order the calls were first written', () =>
        withStore(async (store) => {
          const [a, b] = [`run-${randomUUID()}`, `run-${randomUUID()}`];
          const updatedAt = 7;
          for (const [run, id] of [
            [a, 'a1'],
            [b, 'b1'],
            [a, 'a2'],
          ] as const)
            await store.writeCall(call({ run, call: id, state: 'started', updatedAt }), undefined);
          const started = (await store.listCalls({ state: 'started' })).filter(
            (record) => record.run === a || record.run === b,
          );
          assert.deepEqual(
            started.map((record) => record.call),
            ['a1', 'b1', 'a2'],
          );
        }));

      it('returns at most limit calls, the oldest', () =>
        withStore(async (store) => {
          const run = `run-${randomUUID()}`;
          for (const [i, updatedAt] of [3, 1, 2].entries())
            await store.writeCall(call({ run, call: `c${i}`, state: 'failed', updatedAt }), undefined);
          const all = await store.listCalls({ state: 'failed' });
          const limited = await store.listCalls({ state: 'failed', limit: 2 });
          assert.equal(limited.length, 2);
          assert.deepEqual(limited, all.slice(0, 2));
        }));

      it("lists a run's calls in the order first written, whatever their times, and in one state with state", () =>
        withStore(async (store) => {
          const run = `run-${randomUUID()}`;
          const other = call({ state: 'started' });
          await store.writeCall(other, undefined);
          const times: Record<string, number> = { c3: 30, c1: 10, c2: 20 };
          for (const [id, updatedAt] of Object.entries(times))
            await store.writeCall(call({ run, call: id, state: 'started', updatedAt }), undefined);
          // An update moves c3's time after the others' but not its place in the timeline.
          await store.writeCall(call({ run, call: 'c3', state: 'parked', updatedAt: 99 }), 'started');
          assert.deepEqual(
            (await store.listCalls({ run })).map((record) => record.call),
            ['c3', 'c1', 'c2'],
          );
          assert.deepEqual(
            (await store.listCalls({ run, state: 'started' })).map((record) => record.call),
            ['c1', 'c2'],
          );
          assert.deepEqual(
            (await store.listCalls({ run, limit: 2 })).map((record) => record.call),
            ['c3', 'c1'],
          );
          assert.deepEqual(await store.listCalls({ run: `run-${randomUUID()}` }), []);
        }));

      it('follows a call as its state changes', () =>
        withStore(async (store) => {
          const record = call({ state: 'started' });
          await store.writeCall(record, undefined);
          await store.writeCall({ ...record, state: 'succeeded', answer: ok(1) }, 'started');
          const started = await store.listCalls({ state: 'started' });
          const succeeded = await store.listCalls({ state: 'succeeded' });
          assert.equal(
            started.some((r) => r.run === record.run),
            false,
          );
          assert.equal(succeeded.filter((r) => r.run === record.run).length, 1);
        }));
    });

    describe('listRuns', () => {
      it('sums a run up from its calls and its turn: agent, status, calls, parked, cost and times', () =>
        withStore(async (store) => {
          const agent = `agent-${randomUUID()}`;
          const run = `run-${randomUUID()}`;
          await store.writeTurn(turn({ run, agent, status: 'parked', createdAt: 100, updatedAt: 400 }), undefined);
          await store.writeCall(
            call({ run, agent, call: 'c1', state: 'succeeded', costUsd: 0.25, updatedAt: 200 }),
            undefined,
          );
          await store.writeCall(
            call({ run, agent, call: 'c2', state: 'parked', costUsd: 0.5, updatedAt: 300 }),
            undefined,
          );
          await store.writeCall(call({ run, agent, call: 'c3', state: 'failed', updatedAt: 250 }), undefined);
          assert.deepEqual(await store.listRuns({ agent }), [
            { run, agent, status: 'parked', calls: 3, parked: 1, costUsd: 0.75, firstAt: 100, lastAt: 400 },
          ]);
        }));

      it('lists runs with calls only, and turns without calls, most recent first, at most limit', () =>
        withStore(async (store) => {
          const agent = `agent-${randomUUID()}`;
          const [a, b, c] = [`run-a-${randomUUID()}`, `run-b-${randomUUID()}`, `run-c-${randomUUID()}`];
          await store.writeCall(call({ run: a, agent, state: 'succeeded', updatedAt: 1_000 }), undefined);
          await store.writeTurn(turn({ run: b, agent, status: 'done', createdAt: 2_000, updatedAt: 3_000 }), undefined);
          await store.writeCall(call({ run: c, agent, state: 'started', updatedAt: 2_500 }), undefined);
          const runs = await store.listRuns({ agent });
          assert.deepEqual(
            runs.map((summary) => summary.run),
            [b, c, a],
          );
          assert.deepEqual(runs[0], {
            run: b,
            agent,
            status: 'done',
            calls: 0,
            parked: 0,
            costUsd: 0,
            firstAt: 2_000,
            lastAt: 3_000,
          });
          assert.equal('status' in runs[2]!, false);
          assert.deepEqual(
            (await store.listRuns({ agent, limit: 2 })).map((summary) => summary.run),
            [b, c],
          );
        }));

      it("lists only the given agent's runs, and every agent's without one", () =>
        withStore(async (store) => {
          const [one, two] = [`agent-${randomUUID()}`, `agent-${randomUUID()}`];
          const record = call({ agent: one, state: 'succeeded', updatedAt: 5_000 });
          await store.writeCall(record, undefined);
          await store.writeTurn(turn({ agent: two }), undefined);
          assert.deepEqual(
            (await store.listRuns({ agent: one })).map((summary) => summary.run),
            [record.run],
          );
          assert.equal((await store.listRuns({ agent: two })).length, 1);
          const all = (await store.listRuns()).filter((summary) => summary.agent === one || summary.agent === two);
          assert.equal(all.length, 2);
        }));
    });

    describe('inbox', () => {
      it('lists pending items oldest first, and every item with all', () =>
        withStore(async (store) => {
          const run = `run-${randomUUID()}`;
          const a = inboxItem({ run, createdAt: 30 });
          const b = inboxItem({ run, createdAt: 10 });
          const c = inboxItem({ run, createdAt: 20, status: 'denied', by: 'ana', answeredAt: 40 });
          for (const item of [a, b, c]) await store.putInboxItem(item);
          const mine = (items: InboxRecord[]) => items.filter((item) => item.run === run).map((item) => item.id);
          assert.deepEqual(mine(await store.listInbox()), [b.id, a.id]);
          assert.deepEqual(mine(await store.listInbox({ all: true })), [b.id, c.id, a.id]);
          assert.deepEqual(await store.getInboxItem(c.id), c);
        }));

      it('answers an item only while it has the expected status', () =>
        withStore(async (store) => {
          const item = inboxItem({});
          await store.putInboxItem(item);
          const approved: InboxRecord = { ...item, status: 'approved', by: 'ana', answeredAt: 50 };
          assert.equal(await store.updateInboxItem(approved, 'denied'), false);
          assert.equal(await store.updateInboxItem(approved, 'pending'), true);
          assert.equal(await store.updateInboxItem({ ...item, status: 'denied', by: 'bo' }, 'pending'), false);
          assert.deepEqual(await store.getInboxItem(item.id), approved);
          assert.equal(
            (await store.listInbox()).some((listed) => listed.id === item.id),
            false,
          );
        }));

      it('lets exactly one of 10 concurrent answers win', () =>
        withStore(async (store) => {
          const item = inboxItem({});
          await store.putInboxItem(item);
          const results = await Promise.all(
            range(10).map((i) => store.updateInboxItem({ ...item, status: 'approved', by: `person-${i}` }, 'pending')),
          );
          assert.equal(results.filter(Boolean).length, 1);
          assert.equal((await store.getInboxItem(item.id))?.by, `person-${results.indexOf(true)}`);
        }));

      it('refuses to update an item that does not exist', () =>
        withStore(async (store) => {
          const item = inboxItem({ status: 'approved' });
          assert.equal(await store.updateInboxItem(item, 'pending'), false);
          assert.equal(await store.getInboxItem(item.id), undefined);
        }));
    });

    describe('remembered results', () => {
      it('returns a result until it expires, and nothing from then on', () =>
        withStore(async (store) => {
          const record = {
            key: `key-${randomUUID()}`,
            digest: 'abc',
            answer: ok({ refund: 're_1' }),
            expiresAt: 1_000,
          };
          await store.putRemembered(record);
          assert.deepEqual(await store.getRemembered(record.key, 999), record);
          assert.equal(await store.getRemembered(record.key, 1_000), undefined);
          assert.equal(await store.getRemembered(record.key, 5_000), undefined);
        }));

      it('replaces a result put again under the same key', () =>
        withStore(async (store) => {
          const key = `key-${randomUUID()}`;
          await store.putRemembered({ key, digest: 'one', answer: ok(1), expiresAt: 100 });
          const second = { key, digest: 'two', answer: ok(2), expiresAt: 200 };
          await store.putRemembered(second);
          assert.deepEqual(await store.getRemembered(key, 150), second);
        }));

      it('prunes the expired results and says how many', () =>
        withStore(async (store) => {
          // Far in the past, so results other tests left behind (which expire later) are not pruned here.
          const now = -1_000_000 - Math.floor(Math.random() * 1_000_000);
          const keys = range(4).map((i) => `key-${randomUUID()}-${i}`);
          const expiries = [now - 10, now, now + 1, now + 100];
          for (const [i, key] of keys.entries())
            await store.putRemembered({ key, digest: 'd', answer: ok(i), expiresAt: expiries[i]! });
          assert.equal(await store.pruneRemembered(now), 2);
          assert.equal(await store.pruneRemembered(now), 0);
          assert.equal((await store.getRemembered(keys[2]!, now))?.digest, 'd');
          assert.equal((await store.getRemembered(keys[3]!, now))?.digest, 'd');
        }));
    });

    describe('claims on remembered keys', () => {
      const claim = (key: string, owner: string, over: Partial<RememberedClaim> = {}): RememberedClaim => ({
        key,
        digest: 'd1',
        owner,
        expiresAt: 1_000,
        ...over,
      });

      it('gives a free key to its first claimer, and shows the claim to others', () =>
        withStore(async (store) => {
          const key = `key-${randomUUID()}`;
          assert.deepEqual(await store.claimRemembered(claim(key, '["run-1","c1"]'), 1), { claimed: true });
          assert.deepEqual(await store.claimRemembered(claim(key, '["run-2","c1"]'), 2), {
            claimed: false,
            heldBy: '["run-1","c1"]',
            digest: 'd1',
          });
          assert.deepEqual(
            await store.claimRemembered(claim(key, '["run-1","c1"]'), 3),
            { claimed: true },
            'its owner takes it again (a call run again after a crash)',
          );
        }));

      it('gives exactly one of 10 concurrent claimers the key', () =>
        withStore(async (store) => {
          const key = `key-${randomUUID()}`;
          const outcomes = await Promise.all(
            range(10).map((i) => store.claimRemembered(claim(key, `["run-${i}","c1"]`), 1)),
          );
          assert.equal(outcomes.filter((o) => o.claimed).length, 1);
        }));

      it('answers the remembered result once it is put, and ends the claim', () =>
        withStore(async (store) => {
          const key = `key-${randomUUID()}`;
          await store.claimRemembered(claim(key, '["run-1","c1"]', { expiresAt: 10_000 }), 1);
          const record = { key, digest: 'd1', answer: ok('refunded'), expiresAt: 5_000 };
          await store.putRemembered(record);
          assert.deepEqual(await store.claimRemembered(claim(key, '["run-2","c1"]'), 2), {
            claimed: false,
            remembered: record,
          });
          assert.equal(
            (await store.claimRemembered(claim(key, '["run-2","c1"]'), 6_000)).claimed,
            true,
            'once the result expired the key is free: the claim ended with it',
          );
        }));

      it('frees a key its owner released, or whose claim expired', () =>
        withStore(async (store) => {
          const [released, expired] = [`key-${randomUUID()}`, `key-${randomUUID()}`];
          await store.claimRemembered(claim(released, '["run-1","c1"]'), 1);
          await store.releaseRemembered(released, '["run-9","c1"]');
          assert.equal(
            (await store.claimRemembered(claim(released, '["run-2","c1"]'), 2)).claimed,
            false,
            'only its owner releases it',
          );
          await store.releaseRemembered(released, '["run-1","c1"]');
          assert.equal((await store.claimRemembered(claim(released, '["run-2","c1"]'), 2)).claimed, true);
          await store.claimRemembered(claim(expired, '["run-1","c1"]', { expiresAt: 50 }), 1);
          assert.equal((await store.claimRemembered(claim(expired, '["run-2","c1"]'), 49)).claimed, false);
          assert.equal((await store.claimRemembered(claim(expired, '["run-2","c1"]'), 50)).claimed, true);
        }));
    });

    describe('spend', () => {
      it('is 0 for an agent that spent nothing', () =>
        withStore(async (store) => {
          assert.equal(await store.getSpend(`agent-${randomUUID()}`), 0);
        }));

      it('adds 50 concurrent amounts without losing one', () =>
        withStore(async (store) => {
          const agent = `agent-${randomUUID()}`;
          const totals = await Promise.all(range(50).map(() => store.addSpend(agent, 250_000)));
          assert.equal(await store.getSpend(agent), 12_500_000);
          assert.equal(Math.max(...totals), 12_500_000);
          assert.equal(new Set(totals).size, 50, 'each add returns the total right after it');
        }));

      it('keeps money in whole micro-dollars: ten $0.10 make exactly $1', () =>
        withStore(async (store) => {
          const agent = `agent-${randomUUID()}`;
          for (let i = 0; i < 10; i++) await store.addSpend(agent, 100_000);
          assert.equal(await store.getSpend(agent), 1_000_000);
          // Past what a 32-bit integer holds: $5 000.
          assert.equal(await store.addSpend(agent, 5_000_000_000), 5_001_000_000);
        }));

      it('keeps each agent apart', () =>
        withStore(async (store) => {
          const [a, b] = [`agent-${randomUUID()}`, `agent-${randomUUID()}`];
          assert.equal(await store.addSpend(a, 1_500_000), 1_500_000);
          assert.equal(await store.addSpend(b, 125_000), 125_000);
          assert.equal(await store.addSpend(a, 2_000_000), 3_500_000);
          assert.equal(await store.getSpend(b), 125_000);
        }));
    });

    describe('budget holds', () => {
      const hold = (agent: string, id: string, over: Partial<SpendHold> = {}): SpendHold => ({
        agent,
        id,
        tool: 't/search',
        budgetMicroUsd: 1_000_000,
        maxMicroUsd: 100_000,
        expiresAt: 10_000,
        ...over,
      });

      it('holds while spend plus holds is under the budget, and refuses once it is not', () =>
        withStore(async (store) => {
          const agent = `agent-${randomUUID()}`;
          for (let i = 0; i < 10; i++) assert.equal(await store.holdSpend(hold(agent, `c${i}`), 1), 'held');
          assert.equal(await store.holdSpend(hold(agent, 'c10'), 1), 'spent', 'ten $0.10 holds fill a $1 budget');
          await store.addSpend(agent, 100_000);
          await store.releaseSpend(agent, 'c0', 't/search', 100_000);
          assert.equal(
            await store.holdSpend(hold(agent, 'c10'), 1),
            'spent',
            "the spend took the released hold's place",
          );
        }));

      it('lets exactly ten of 40 concurrent $0.10 holds into a $1 budget', () =>
        withStore(async (store) => {
          const agent = `agent-${randomUUID()}`;
          const outcomes = await Promise.all(range(40).map((i) => store.holdSpend(hold(agent, `c${i}`), 1)));
          assert.equal(outcomes.filter((o) => o === 'held').length, 10);
          assert.equal(outcomes.filter((o) => o === 'spent').length, 30);
        }));

      it('lets a hold lapse at its expiry', () =>
        withStore(async (store) => {
          const agent = `agent-${randomUUID()}`;
          assert.equal(await store.holdSpend(hold(agent, 'c1', { maxMicroUsd: 1_000_000, expiresAt: 50 }), 1), 'held');
          assert.equal(await store.holdSpend(hold(agent, 'c2'), 49), 'spent');
          assert.equal(await store.holdSpend(hold(agent, 'c2'), 50), 'held');
        }));

      it('holds one call at a time of a tool of unknown cost, then what it cost at most', () =>
        withStore(async (store) => {
          const agent = `agent-${randomUUID()}`;
          const tool = `t/unknown-${randomUUID()}`;
          const unknown = (id: string) => hold(agent, id, { tool, maxMicroUsd: undefined });
          const outcomes = await Promise.all(range(5).map((i) => store.holdSpend(unknown(`c${i}`), 1)));
          assert.deepEqual(outcomes.filter((o) => o === 'held').length, 1);
          const first = `c${outcomes.indexOf('held')}`;
          assert.equal(
            await store.holdSpend(hold(agent, 'other', { tool: 't/other', maxMicroUsd: undefined }), 1),
            'held',
            'another tool is not held up',
          );
          await store.releaseSpend(agent, first, tool, undefined);
          assert.equal(
            await store.holdSpend(unknown('c9'), 1),
            'held',
            'a call that did not run tells nothing, but frees the turn',
          );
          await store.releaseSpend(agent, 'c9', tool, 300_000);
          await store.addSpend(agent, 300_000);
          // Its cost is known now ($0.30): held for each call, so $0.30 spent + two holds reach the $1 budget at the third.
          const next = await Promise.all(range(4).map((i) => store.holdSpend(unknown(`d${i}`), 1)));
          assert.equal(next.filter((o) => o === 'held').length, 3);
          assert.equal(next.filter((o) => o === 'spent').length, 1);
        }));

      it('keeps each agent apart', () =>
        withStore(async (store) => {
          const [a, b] = [`agent-${randomUUID()}`, `agent-${randomUUID()}`];
          assert.equal(await store.holdSpend(hold(a, 'c1', { maxMicroUsd: 1_000_000 }), 1), 'held');
          assert.equal(await store.holdSpend(hold(b, 'c1'), 1), 'held');
          assert.equal(await store.holdSpend(hold(a, 'c2'), 1), 'spent');
        }));
    });

    describe('labels', () => {
      it('returns only the labels that were new, in the order given', () =>
        withStore(async (store) => {
          const run = `run-${randomUUID()}`;
          assert.deepEqual(await store.addLabels(run, ['outside', 'pii']), ['outside', 'pii']);
          assert.deepEqual(await store.addLabels(run, ['secret', 'pii', 'outside', 'external']), [
            'secret',
            'external',
          ]);
          assert.deepEqual(await store.addLabels(run, ['pii']), []);
          assert.deepEqual(await store.getLabels(run), ['outside', 'pii', 'secret', 'external']);
        }));

      it('keeps each run apart', () =>
        withStore(async (store) => {
          const [a, b] = [`run-${randomUUID()}`, `run-${randomUUID()}`];
          await store.addLabels(a, ['outside']);
          assert.deepEqual(await store.addLabels(b, ['outside']), ['outside']);
          assert.deepEqual(await store.getLabels(`run-${randomUUID()}`), []);
        }));

      it('gives a label to exactly one of 10 concurrent adds', () =>
        withStore(async (store) => {
          const run = `run-${randomUUID()}`;
          const results = await Promise.all(range(10).map(() => store.addLabels(run, ['outside'])));
          assert.equal(results.filter((added) => added.length === 1).length, 1);
        }));
    });

    describe('sync, the journal without promises', () => {
      it(
        options.synchronous
          ? 'agrees with the promise methods: the same compare-and-set, one record, the same labels'
          : 'is not offered',
        () =>
          withStore(async (store) => {
            const sync = store.sync;
            if (!options.synchronous) return assert.equal(sync, undefined);
            assert.ok(sync !== undefined);
            const started = call({ state: 'started' });
            assert.equal(sync.writeCall(started, undefined), true);
            assert.equal(await store.writeCall({ ...started, attempt: 2 }, undefined), false);
            assert.equal(sync.writeCall({ ...started, attempt: 3 }, undefined), false);
            const done = { ...started, state: 'succeeded' as const, answer: ok('done'), updatedAt: 2 };
            assert.equal(sync.writeCall(done, 'started'), true);
            assert.equal(sync.writeCall({ ...done, state: 'failed' }, 'started'), false);
            assert.deepEqual(await store.getCall(started.run, started.call), done);
            await store.addLabels(started.run, ['outside', 'pii']);
            assert.deepEqual(sync.getLabels(started.run), await store.getLabels(started.run));
            assert.deepEqual(sync.getLabels(`run-${randomUUID()}`), []);
          }),
      );
    });

    describe('run leases', () => {
      it('takes a lease nobody holds', () =>
        withStore(async (store) => {
          assert.equal(await lease(store, `run-${randomUUID()}`, 'node-a', 1_000, 100), true);
        }));

      it('refuses a lease another node holds until it expires', () =>
        withStore(async (store) => {
          const run = `run-${randomUUID()}`;
          await lease(store, run, 'node-a', 1_000, 100);
          assert.equal(await lease(store, run, 'node-b', 1_050, 100), false);
          // Held until 1 100 inclusive: expired only before now.
          assert.equal(await lease(store, run, 'node-b', 1_100, 100), false);
        }));

      it('hands an expired lease to another node', () =>
        withStore(async (store) => {
          const run = `run-${randomUUID()}`;
          await lease(store, run, 'node-a', 1_000, 100);
          assert.equal(await lease(store, run, 'node-b', 1_101, 100), true);
          assert.equal(await lease(store, run, 'node-a', 1_150, 100), false, 'the old holder lost it');
        }));

      it('lets the holder renew its lease, which moves the expiry', () =>
        withStore(async (store) => {
          const run = `run-${randomUUID()}`;
          await lease(store, run, 'node-a', 1_000, 100);
          assert.equal(await lease(store, run, 'node-a', 1_090, 100), true);
          assert.equal(await lease(store, run, 'node-b', 1_150, 100), false, 'renewed until 1 190');
          assert.equal(await lease(store, run, 'node-b', 1_191, 100), true);
        }));

      it('lets the holder renew even after its lease expired, while nobody took it', () =>
        withStore(async (store) => {
          const run = `run-${randomUUID()}`;
          await lease(store, run, 'node-a', 1_000, 100);
          assert.equal(await lease(store, run, 'node-a', 5_000, 100), true);
          assert.equal(await lease(store, run, 'node-b', 5_050, 100), false);
        }));

      it('is released only by its holder', () =>
        withStore(async (store) => {
          const run = `run-${randomUUID()}`;
          await lease(store, run, 'node-a', 1_000, 100);
          await store.releaseRun(run, 'node-b');
          assert.equal(
            await lease(store, run, 'node-b', 1_010, 100),
            false,
            'a release by another node changes nothing',
          );
          await store.releaseRun(run, 'node-a');
          assert.equal(await lease(store, run, 'node-b', 1_020, 100), true);
        }));

      it('releases a run nobody holds without complaint', () =>
        withStore(async (store) => {
          await store.releaseRun(`run-${randomUUID()}`, 'node-a');
        }));

      it('keeps each run apart', () =>
        withStore(async (store) => {
          const [a, b] = [`run-${randomUUID()}`, `run-${randomUUID()}`];
          await lease(store, a, 'node-a', 1_000, 100);
          assert.equal(await lease(store, b, 'node-b', 1_000, 100), true);
        }));

      it('gives a free run to exactly one of 10 racing nodes', () =>
        withStore(async (store) => {
          const run = `run-${randomUUID()}`;
          const results = await Promise.all(range(10).map((i) => lease(store, run, `node-${i}`, 1_000, 100)));
          assert.equal(results.filter(Boolean).length, 1);
          const winner = results.indexOf(true);
          assert.equal(await lease(store, run, `node-${winner}`, 1_050, 100), true, 'the winner holds it');
          assert.equal(await lease(store, run, `node-${(winner + 1) % 10}`, 1_050, 100), false);
        }));

      it('takes a run for a call only while that call is still started (whileStarted)', () =>
        withStore(async (store) => {
          const started = call({ state: 'started' });
          const { run } = started;
          await store.writeCall(started, undefined);
          await options.clock.at(1_000);
          assert.equal(await store.leaseRun(run, 'node-a', 100, 'no-such-call'), false, 'no such call');
          assert.equal(await store.leaseRun(run, 'node-a', 100, started.call), true, 'free, and the call is started');
          assert.equal(await store.leaseRun(run, 'node-b', 100, started.call), false, 'node-a holds it');
          await store.writeCall({ ...started, state: 'succeeded', answer: ok('done'), updatedAt: 2 }, 'started');
          await store.releaseRun(run, 'node-a');
          assert.equal(
            await store.leaseRun(run, 'node-b', 100, started.call),
            false,
            'free, but the call was answered',
          );
          assert.equal(await store.leaseRun(run, 'node-b', 100), true, 'free');
        }));

      it('gives an expired run to exactly one of 10 racing nodes', () =>
        withStore(async (store) => {
          const run = `run-${randomUUID()}`;
          await lease(store, run, 'node-dead', 1_000, 100);
          const results = await Promise.all(range(10).map((i) => lease(store, run, `node-${i}`, 2_000, 100)));
          assert.equal(results.filter(Boolean).length, 1);
        }));
    });

    describe('turns', () => {
      it('creates a turn only when it has none (expected undefined)', () =>
        withStore(async (store) => {
          const first = turn({});
          assert.equal(await store.writeTurn(first, undefined), true);
          assert.equal(await store.writeTurn({ ...first, status: 'failed' }, undefined), false);
          assert.deepEqual(await store.getTurn(first.run), first);
        }));

      it('updates a turn only while its version is the expected one', () =>
        withStore(async (store) => {
          const first = turn({});
          await store.writeTurn(first, undefined);
          const second: TurnRecord = {
            ...first,
            version: 2,
            status: 'parked',
            data: { step: 2 },
            updatedAt: first.updatedAt + 5,
          };
          assert.equal(await store.writeTurn(second, 0), false);
          assert.equal(await store.writeTurn(second, 2), false);
          assert.equal(await store.writeTurn(second, 1), true);
          assert.equal(await store.writeTurn({ ...second, version: 3, status: 'done' }, 1), false, 'version 1 is gone');
          assert.deepEqual(await store.getTurn(first.run), second);
        }));

      it('refuses a compare-and-set on a turn that does not exist', () =>
        withStore(async (store) => {
          const record = turn({ version: 2 });
          assert.equal(await store.writeTurn(record, 1), false);
          assert.equal(await store.getTurn(record.run), undefined);
        }));

      it('lets exactly one of 10 concurrent first writes win', () =>
        withStore(async (store) => {
          const base = turn({});
          const results = await Promise.all(
            range(10).map((i) => store.writeTurn({ ...base, data: { writer: i } }, undefined)),
          );
          assert.equal(results.filter(Boolean).length, 1);
          assert.deepEqual((await store.getTurn(base.run))?.data, { writer: results.indexOf(true) });
        }));

      it('lets exactly one of 10 concurrent writers of the same version win', () =>
        withStore(async (store) => {
          const base = turn({});
          await store.writeTurn(base, undefined);
          const results = await Promise.all(
            range(10).map((i) => store.writeTurn({ ...base, version: 2, data: { writer: i } }, 1)),
          );
          assert.equal(results.filter(Boolean).length, 1);
          assert.deepEqual(await store.getTurn(base.run), {
            ...base,
            version: 2,
            data: { writer: results.indexOf(true) },
          });
        }));

      it('answers undefined for a turn never written', () =>
        withStore(async (store) => {
          assert.equal(await store.getTurn(`run-${randomUUID()}`), undefined);
        }));

      it('round-trips nested JSON, unicode, null data and fractional times', () =>
        withStore(async (store) => {
          const data = {
            messages: [{ role: 'user', content: 'Grüße, 東京, 🚀, nul\u0000 end' }],
            usage: { input: 12, cost: 1.5e-7 },
            flags: [true, null],
          };
          const withData = turn({ data, createdAt: 1_700_000_000_000.25, updatedAt: 1_700_000_000_001.5 });
          const withNull = turn({ data: null });
          await store.writeTurn(withData, undefined);
          await store.writeTurn(withNull, undefined);
          assert.deepEqual(await store.getTurn(withData.run), withData);
          assert.deepEqual(await store.getTurn(withNull.run), withNull);
        }));
    });

    describe('listTurns', () => {
      it("lists an agent's turns oldest createdAt first, ties in the order first written", () =>
        withStore(async (store) => {
          const agent = `agent-${randomUUID()}`;
          const times: Record<string, number> = { t1: 30, t2: 10, t3: 20, t4: 10 };
          const runs = Object.fromEntries(Object.keys(times).map((id) => [id, `run-${randomUUID()}-${id}`]));
          for (const [id, createdAt] of Object.entries(times))
            await store.writeTurn(turn({ run: runs[id]!, agent, createdAt }), undefined);
          // Updating a turn does not move it.
          const t2 = (await store.getTurn(runs.t2!))!;
          await store.writeTurn({ ...t2, version: 2, updatedAt: 99 }, 1);
          const listed = await store.listTurns({ agent });
          assert.deepEqual(
            listed.map((record) => record.run),
            [runs.t2, runs.t4, runs.t3, runs.t1],
          );
        }));

      it('filters by status, and by agent and status together', () =>
        withStore(async (store) => {
          const [a, b] = [`agent-${randomUUID()}`, `agent-${randomUUID()}`];
          const records = [
            turn({ agent: a, status: 'running', createdAt: 1 }),
            turn({ agent: a, status: 'parked', createdAt: 2 }),
            turn({ agent: b, status: 'parked', createdAt: 3 }),
            turn({ agent: a, status: 'parked', createdAt: 4 }),
          ];
          for (const record of records) await store.writeTurn(record, undefined);
          const mine = (turns: TurnRecord[]) =>
            turns.filter((record) => record.agent === a || record.agent === b).map((record) => record.run);
          assert.deepEqual(mine(await store.listTurns({ status: 'parked' })), [
            records[1]!.run,
            records[2]!.run,
            records[3]!.run,
          ]);
          assert.deepEqual(await store.listTurns({ agent: a, status: 'parked' }), [records[1], records[3]]);
          assert.deepEqual(await store.listTurns({ agent: b, status: 'running' }), []);
          assert.deepEqual(await store.listTurns({ agent: a }), [records[0], records[1], records[3]]);
        }));

      it('follows a turn as its status changes', () =>
        withStore(async (store) => {
          const record = turn({ status: 'running' });
          await store.writeTurn(record, undefined);
          await store.writeTurn({ ...record, version: 2, status: 'done' }, 1);
          assert.deepEqual(await store.listTurns({ agent: record.agent, status: 'running' }), []);
          assert.equal((await store.listTurns({ agent: record.agent, status: 'done' })).length, 1);
        }));

      it('returns at most limit turns, the oldest, with or without filters', () =>
        withStore(async (store) => {
          const agent = `agent-${randomUUID()}`;
          // Far in the past, so these are the oldest turns even beside those other tests left behind.
          const base = -1_000_000 - Math.floor(Math.random() * 1_000_000);
          const records = [3, 1, 2].map((offset) => turn({ agent, createdAt: base + offset }));
          for (const record of records) await store.writeTurn(record, undefined);
          const oldest = [records[1], records[2]];
          assert.deepEqual(await store.listTurns({ agent, limit: 2 }), oldest);
          assert.deepEqual(await store.listTurns({ agent, status: 'running', limit: 2 }), oldest);
          assert.deepEqual(await store.listTurns({ limit: 2 }), oldest);
          assert.deepEqual(await store.listTurns({ agent, limit: 0 }), []);
        }));
    });

    describe('steps', () => {
      it('writes a step once: a second write of its index is refused and changes nothing', () =>
        withStore(async (store) => {
          const run = `run-${randomUUID()}`;
          const first = { run, index: 0, data: { text: 'first' }, createdAt: 1 };
          assert.equal(await store.appendStep(first), true);
          assert.equal(await store.appendStep({ ...first, data: { text: 'second' }, createdAt: 2 }), false);
          assert.deepEqual(await store.listSteps(run), [first]);
        }));

      it('lets exactly one of 10 concurrent writes of one index win', () =>
        withStore(async (store) => {
          const run = `run-${randomUUID()}`;
          const results = await Promise.all(
            range(10).map((i) => store.appendStep({ run, index: 3, data: { writer: i }, createdAt: 1 })),
          );
          assert.equal(results.filter(Boolean).length, 1);
          assert.deepEqual(
            (await store.listSteps(run)).map((step) => step.data),
            [{ writer: results.indexOf(true) }],
          );
        }));

      it("lists a turn's steps in index order, whatever order they were written in", () =>
        withStore(async (store) => {
          const run = `run-${randomUUID()}`;
          for (const index of [2, 0, 10, 1])
            await store.appendStep({ run, index, data: index, createdAt: 100 - index });
          await store.appendStep({ run: `run-${randomUUID()}`, index: 5, data: 'another run', createdAt: 1 });
          assert.deepEqual(
            (await store.listSteps(run)).map((step) => step.index),
            [0, 1, 2, 10],
          );
        }));

      it('lists no steps for a turn that has none', () =>
        withStore(async (store) => {
          assert.deepEqual(await store.listSteps(`run-${randomUUID()}`), []);
        }));

      it('round-trips nested JSON, unicode, null and fractional times', () =>
        withStore(async (store) => {
          const run = `run-${randomUUID()}`;
          const steps = [
            {
              run,
              index: 0,
              data: {
                response: { text: 'über 500 € — 🚀', toolCalls: [{ id: 'c1', input: '{"a":1}' }] },
                nested: [[1], [2, [3]]],
              },
              createdAt: 0.5,
            },
            { run, index: 1, data: null, createdAt: 1_700_000_000_000 },
            { run, index: 2, data: 'x'.repeat(100_000), createdAt: 2 },
          ];
          for (const step of steps) await store.appendStep(step);
          assert.deepEqual(await store.listSteps(run), steps);
        }));
    });

    describe('lastFinishedTurns', () => {
      it("gives the agent's last finished turns, oldest finish first, leaving out unfinished turns and other agents'", () =>
        withStore(async (store) => {
          const agent = `agent-${randomUUID()}`;
          const statuses = ['done', 'failed', 'running', 'budget_spent', 'parked', 'done'] as const;
          const turns = statuses.map((status, i) =>
            turn({ agent, status, createdAt: 100 + i, updatedAt: 1_000 - i * 10 }),
          );
          for (const t of turns) await store.writeTurn(t, undefined);
          await store.writeTurn(turn({ agent: `agent-${randomUUID()}`, status: 'done', updatedAt: 2_000 }), undefined);
          const runsOf = (list: readonly TurnRecord[]) => list.map((t) => t.run);
          // Finished at 1000, 990, 970 and 950, written in that order: the last three by finish time are 970, 990, 1000.
          assert.deepEqual(runsOf(await store.lastFinishedTurns(agent, 3)), runsOf([turns[3]!, turns[1]!, turns[0]!]));
          assert.deepEqual(await store.lastFinishedTurns(agent, 10), [turns[5], turns[3], turns[1], turns[0]]);
          assert.deepEqual(await store.lastFinishedTurns(`agent-${randomUUID()}`, 10), []);
        }));

      it('sees a turn once it finishes, at its finish time', () =>
        withStore(async (store) => {
          const agent = `agent-${randomUUID()}`;
          const early = turn({ agent, status: 'done', updatedAt: 10 });
          const late = turn({ agent, status: 'running', updatedAt: 5 });
          await store.writeTurn(early, undefined);
          await store.writeTurn(late, undefined);
          assert.deepEqual(await store.lastFinishedTurns(agent, 5), [early]);
          const finished = { ...late, status: 'done' as const, version: 2, updatedAt: 20 };
          await store.writeTurn(finished, 1);
          assert.deepEqual(await store.lastFinishedTurns(agent, 1), [finished]);
          assert.deepEqual(await store.lastFinishedTurns(agent, 5), [early, finished]);
        }));
    });

    describe('writeJournal, several writes in one transaction', () => {
      it('answers each write as its namesake would, and keeps the ones that took', () =>
        withStore(async (store) => {
          const run = `run-${randomUUID()}`;
          const older = call({ run, call: 'c0', state: 'started' });
          await store.writeCall(older, undefined);
          await store.appendStep({ run, index: 0, data: 'model step', createdAt: 1 });
          const final = call({ run, call: 'c2', state: 'succeeded', answer: ok('final') });
          await store.writeCall(final, undefined);
          const fresh = call({ run, call: 'c1', state: 'started' });
          const answered = { ...older, state: 'succeeded' as const, answer: ok('done'), updatedAt: 3 };
          const results = await store.writeJournal([
            { step: { run, index: 1, data: { calls: ['c1'] }, createdAt: 2 } },
            { call: fresh, expected: undefined },
            { call: answered, expected: 'started' },
            { call: { ...final, state: 'failed' }, expected: 'started' },
            { step: { run, index: 0, data: 'again', createdAt: 2 } },
          ]);
          assert.deepEqual(results, [true, true, true, false, false]);
          assert.deepEqual(await store.getCall(run, 'c1'), fresh);
          assert.deepEqual(await store.getCall(run, 'c0'), answered);
          assert.deepEqual(
            (await store.listSteps(run)).map((step) => step.data),
            ['model step', { calls: ['c1'] }],
          );
          assert.deepEqual(await store.getCall(run, 'c2'), final);
          assert.deepEqual(
            (await store.listCalls({ run })).map((record) => record.call),
            ['c0', 'c2', 'c1'],
          );
        }));

      it("lets exactly one of 10 concurrent batches moving one call on win, and each batch's other writes take", () =>
        withStore(async (store) => {
          const run = `run-${randomUUID()}`;
          const started = call({ run, call: 'c1', state: 'started' });
          await store.writeCall(started, undefined);
          const results = await Promise.all(
            range(10).map((i) =>
              store.writeJournal([
                { call: { ...started, state: 'succeeded', answer: ok(i), updatedAt: 2 }, expected: 'started' },
                { step: { run, index: i, data: i, createdAt: 2 } },
              ]),
            ),
          );
          assert.equal(results.filter(([won]) => won).length, 1);
          assert.ok(results.every(([, step]) => step));
          const winner = results.findIndex(([won]) => won);
          assert.deepEqual((await store.getCall(run, 'c1'))?.answer, ok(winner));
          assert.equal((await store.listSteps(run)).length, 10);
        }));

      it('adds a spend exactly, with the batch, whatever its other writes answer', () =>
        withStore(async (store) => {
          const run = `run-${randomUUID()}`;
          const agent = `agent-${randomUUID()}`;
          await store.appendStep({ run, index: 0, data: 'model step', createdAt: 1 });
          const results = await store.writeJournal([
            // Another node wrote this step first: the money this node's model call cost was spent all the same.
            { step: { run, index: 0, data: 'again', createdAt: 2 } },
            { spend: { agent, microUsd: 100_000 } },
            { spend: { agent, microUsd: 1 } },
            { spend: { agent: `${agent}-other`, microUsd: 7 } },
          ]);
          assert.deepEqual(results, [false, true, true, true]);
          assert.equal(await store.getSpend(agent), 100_001);
          assert.equal(await store.getSpend(`${agent}-other`), 7);
          assert.equal(await store.addSpend(agent, 9), 100_010);
        }));

      it('adds labels to runs with the batch, in order, each once', () =>
        withStore(async (store) => {
          const run = `run-${randomUUID()}`;
          await store.addLabels(run, ['pii']);
          const results = await store.writeJournal([
            { labels: { run, labels: ['outside', 'pii'] } },
            { step: { run, index: 0, data: 'model step', createdAt: 1 } },
            { labels: { run, labels: ['outside', 'secret'] } },
            { labels: { run: `${run}-other`, labels: ['outside'] } },
          ]);
          assert.deepEqual(results, [true, true, true, true]);
          assert.deepEqual(await store.getLabels(run), ['pii', 'outside', 'secret']);
          assert.deepEqual(await store.getLabels(`${run}-other`), ['outside']);
          assert.deepEqual(await store.addLabels(run, ['outside', 'new']), ['new']);
        }));

      it('adds the spends of 20 concurrent batches of one agent exactly once each', () =>
        withStore(async (store) => {
          const agent = `agent-${randomUUID()}`;
          await Promise.all(
            range(20).map((i) =>
              store.writeJournal([
                { step: { run: `run-${randomUUID()}`, index: 0, data: i, createdAt: 1 } },
                { spend: { agent, microUsd: 100_000 } },
              ]),
            ),
          );
          assert.equal(await store.getSpend(agent), 2_000_000);
        }));

      it('writes a turn as writeTurn would: inserted when none is expected, moved on only from the expected version', () =>
        withStore(async (store) => {
          const first = turn({});
          const second: TurnRecord = {
            ...first,
            version: 2,
            status: 'parked',
            data: { step: 2 },
            updatedAt: first.updatedAt + 5,
          };
          assert.deepEqual(await store.writeJournal([{ turn: first, expectedVersion: undefined }]), [true]);
          assert.deepEqual(
            await store.writeJournal([{ turn: { ...first, status: 'failed' }, expectedVersion: undefined }]),
            [false],
            'it has one',
          );
          assert.deepEqual(await store.writeJournal([{ turn: second, expectedVersion: 2 }]), [false]);
          assert.deepEqual(await store.getTurn(first.run), first);
          assert.deepEqual(await store.writeJournal([{ turn: second, expectedVersion: 1 }]), [true]);
          assert.deepEqual(
            await store.writeJournal([{ turn: { ...second, version: 3, status: 'done' }, expectedVersion: 1 }]),
            [false],
            'version 1 is gone',
          );
          assert.deepEqual(await store.getTurn(first.run), second);
          const missing = turn({ version: 2 });
          assert.deepEqual(await store.writeJournal([{ turn: missing, expectedVersion: 1 }]), [false]);
          assert.equal(await store.getTurn(missing.run), undefined);
          assert.deepEqual(await store.listTurns({ agent: first.agent }), [second]);
        }));

      it('takes, refuses, renews and releases a lease as leaseRun and releaseRun would', () =>
        withStore(async (store) => {
          const run = `run-${randomUUID()}`;
          // The batch with its lease taken at `now` on the store's clock.
          const journal = async (now: number, writes: JournalWrite[]) => {
            await options.clock.at(now);
            return store.writeJournal(writes);
          };
          const leasing = (node: string) => ({ lease: { run, node, ttlMs: 100 } });
          const release = (node: string) => ({ release: { run, node } });
          assert.deepEqual(await journal(1_000, [leasing('node-a')]), [true], 'nobody held it');
          assert.deepEqual(await journal(1_100, [leasing('node-b')]), [false], 'held until 1 100 inclusive');
          assert.deepEqual(await journal(1_090, [leasing('node-a')]), [true], 'renewed until 1 190');
          assert.deepEqual(await journal(1_150, [leasing('node-b')]), [false]);
          assert.deepEqual(await store.writeJournal([release('node-b')]), [true], 'a release is always answered true');
          assert.equal(
            await lease(store, run, 'node-b', 1_160, 100),
            false,
            'a release by another node changes nothing',
          );
          assert.deepEqual(await store.writeJournal([release('node-a')]), [true]);
          assert.equal(await lease(store, run, 'node-b', 1_170, 100), true, 'its holder gave it up');
          assert.deepEqual(await journal(5_000, [leasing('node-a')]), [true], "node-b's lapsed before 5 000");
          assert.equal(await lease(store, run, 'node-b', 5_050, 100), false);
          assert.deepEqual(
            await journal(5_060, [release('node-a'), leasing('node-b')]),
            [true, true],
            'given up, then taken, in order',
          );
          assert.equal(await lease(store, run, 'node-a', 5_070, 100), false);
        }));

      it("writes a turn's start and end with its calls and steps in one batch, each write answered as its namesake would", () =>
        withStore(async (store) => {
          const record = turn({});
          const { run } = record;
          const taken = `run-${randomUUID()}`;
          await lease(store, taken, 'node-b', 1_000, 100);
          const answeredElsewhere = call({ run, call: 'c9', state: 'succeeded', answer: ok('elsewhere') });
          await store.writeCall(answeredElsewhere, undefined);
          // A turn's start: its lease, its labels, its record; here with its first step and call.
          const fresh = call({ run, call: 'c1', state: 'started' });
          await options.clock.at(1_000);
          assert.deepEqual(
            await store.writeJournal([
              { lease: { run, node: 'node-a', ttlMs: 100 } },
              { lease: { run: taken, node: 'node-a', ttlMs: 100 } },
              { labels: { run, labels: ['pii'] } },
              { turn: record, expectedVersion: undefined },
              { step: { run, index: 0, data: { calls: ['c1'] }, createdAt: 2 } },
              { call: fresh, expected: undefined },
              { call: { ...answeredElsewhere, state: 'failed' }, expected: 'started' },
            ]),
            [true, false, true, true, true, true, false],
          );
          // Its end: the last answer, the turn's record, and the lease given up.
          const done = { ...fresh, state: 'succeeded' as const, answer: ok('done'), updatedAt: 3 };
          const finished: TurnRecord = {
            ...record,
            version: 2,
            status: 'done',
            data: { answer: 'done' },
            updatedAt: record.updatedAt + 1,
          };
          assert.deepEqual(
            await store.writeJournal([
              { call: done, expected: 'started' },
              { step: { run, index: 1, data: 'tools', createdAt: 3 } },
              { turn: { ...finished, status: 'failed' }, expectedVersion: 2 },
              { turn: finished, expectedVersion: 1 },
              { release: { run, node: 'node-a' } },
              { release: { run: taken, node: 'node-a' } },
            ]),
            [true, true, false, true, true, true],
          );
          assert.deepEqual(await store.getTurn(run), finished);
          assert.deepEqual(await store.getCall(run, 'c1'), done);
          assert.deepEqual(await store.getCall(run, 'c9'), answeredElsewhere);
          assert.deepEqual(
            (await store.listSteps(run)).map((step) => step.data),
            [{ calls: ['c1'] }, 'tools'],
          );
          assert.deepEqual(await store.getLabels(run), ['pii']);
          assert.equal(await lease(store, run, 'node-b', 1_010, 100), true, 'node-a gave it up');
          assert.equal(await lease(store, taken, 'node-a', 1_050, 100), false, 'node-b still holds it');
        }));

      it('answers batches handed in together, as one after the other would, whether or not they share rows', () =>
        withStore(async (store) => {
          const turns = range(6).map(() => turn({}));
          const shared = `run-${randomUUID()}`;
          // Every batch at 1 000 on the store's clock (the third lease of `shared` was at 1 060: taken either way).
          await options.clock.at(1_000);
          const batches: JournalWrite[][] = [
            ...turns.map((record, i): JournalWrite[] => [
              { lease: { run: record.run, node: `node-${i}`, ttlMs: 100 } },
              { turn: record, expectedVersion: undefined },
              { call: call({ run: record.run, state: 'started' }), expected: undefined },
            ]),
            // Batches on one run and one turn, handed in with the rest: each answered as if it came alone, in order.
            [{ lease: { run: shared, node: 'node-a', ttlMs: 100 } }],
            [{ lease: { run: shared, node: 'node-b', ttlMs: 100 } }],
            [
              { turn: { ...turns[0]!, version: 2, status: 'done' }, expectedVersion: 1 },
              { release: { run: turns[0]!.run, node: 'node-0' } },
            ],
            [{ turn: { ...turns[0]!, version: 2, status: 'failed' }, expectedVersion: 1 }],
            [{ release: { run: shared, node: 'node-a' } }],
            [{ lease: { run: shared, node: 'node-b', ttlMs: 100 } }, { turn: turns[1]!, expectedVersion: undefined }],
          ];
          const results = await Promise.all(batches.map((batch) => store.writeJournal(batch)));
          assert.deepEqual(results, [
            ...turns.map(() => [true, true, true]),
            [true],
            [false],
            [true, true],
            [false],
            [true],
            [true, false],
          ]);
          assert.equal((await store.getTurn(turns[0]!.run))?.status, 'done');
          assert.deepEqual(await store.getTurn(turns[1]!.run), turns[1]);
          assert.equal(await lease(store, turns[0]!.run, 'node-x', 1_010, 100), true, 'node-0 gave it up');
          assert.equal(await lease(store, turns[2]!.run, 'node-x', 1_010, 100), false, 'node-2 holds it');
          assert.equal(await lease(store, shared, 'node-a', 1_100, 100), false, 'node-b holds it until 1 100');
          assert.equal(await lease(store, shared, 'node-b', 1_100, 100), true);
        }));

      it('answers an empty batch with no writes', () =>
        withStore(async (store) => {
          assert.deepEqual(await store.writeJournal([]), []);
        }));
    });

    describe('prune, retention of finished runs', () => {
      // Times well before every other test's, so that what this suite checks is its own; a pass may
      // also take other tests' old runs, so counts are at least what these tests made.
      const cutoff = 50_000;
      const old = 10_000;

      async function finishedRun(store: Store, over: Partial<TurnRecord> = {}) {
        const t = turn({ status: 'done', createdAt: old, updatedAt: old, ...over });
        await store.writeTurn(t, undefined);
        await store.appendStep({ run: t.run, index: 0, data: 'model step', createdAt: old });
        const item = inboxItem({ run: t.run, call: 'c1', status: 'approved', createdAt: old, answeredAt: old });
        await store.putInboxItem(item);
        await store.writeCall(
          call({ run: t.run, call: 'c1', state: 'succeeded', answer: ok(1), updatedAt: old }),
          undefined,
        );
        await store.addLabels(t.run, ['outside']);
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

      async function drain(store: Store, options: { before: number; limit?: number }) {
        const passes = [];
        for (let report = await store.prune(options); ; report = await store.prune(options)) {
          passes.push(report);
          if (report.runs === 0 || passes.length > 1_000) return passes;
        }
      }

      it("deletes a finished run's turn, steps, calls, labels, answered inbox items and lease", () =>
        withStore(async (store) => {
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
        withStore(async (store) => {
          const run = `run-${randomUUID()}`;
          await store.writeCall(
            call({ run, call: 'c1', state: 'succeeded', answer: ok(1), updatedAt: old }),
            undefined,
          );
          await store.writeCall(call({ run, call: 'c2', state: 'failed', updatedAt: old }), undefined);
          await drain(store, { before: cutoff });
          await gone(store, run);
        }));

      it('keeps parked and in-doubt runs, running turns, and runs written since the cutoff, however old they began', () =>
        withStore(async (store) => {
          const parked = turn({ status: 'parked', createdAt: 1, updatedAt: 1 });
          await store.writeTurn(parked, undefined);
          await store.writeCall(
            call({ run: parked.run, call: 'c1', state: 'parked', inboxId: 'i1', updatedAt: 1 }),
            undefined,
          );
          const pending = inboxItem({ run: parked.run, call: 'c1', createdAt: 1 });
          await store.putInboxItem(pending);
          // A finished turn whose call still waits: its run stays, and so does the answered item it waits on.
          const waiting = turn({ status: 'failed', createdAt: 1, updatedAt: 1 });
          await store.writeTurn(waiting, undefined);
          await store.writeCall(call({ run: waiting.run, call: 'c1', state: 'parked', updatedAt: 1 }), undefined);
          const approved = inboxItem({ run: waiting.run, call: 'c1', status: 'approved', createdAt: 1 });
          await store.putInboxItem(approved);
          // In doubt: a call of a run without a turn, parked for a person after a crash.
          const inDoubt = `run-${randomUUID()}`;
          await store.writeCall(
            call({ run: inDoubt, call: 'c1', state: 'succeeded', answer: ok(1), updatedAt: 1 }),
            undefined,
          );
          await store.writeCall(call({ run: inDoubt, call: 'c2', state: 'parked', updatedAt: 1 }), undefined);
          await store.putInboxItem(inboxItem({ run: inDoubt, call: 'c2', kind: 'in_doubt', createdAt: 1 }));
          const running = turn({ status: 'running', createdAt: 1, updatedAt: 1 });
          await store.writeTurn(running, undefined);
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
        withStore(async (store) => {
          const runs = [];
          for (let i = 0; i < 3; i++) runs.push((await finishedRun(store)).run);
          const passes = await drain(store, { before: cutoff, limit: 1 });
          assert.ok(passes.every((report) => report.runs <= 1));
          assert.ok(passes.length >= 4, 'three runs, one a pass, then an empty pass');
          for (const run of runs) await gone(store, run);
        }));

      it('on a dry run deletes nothing and counts what a pass would delete', () =>
        withStore(async (store) => {
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
        withStore(async (store) => {
          const agent = `agent-${randomUUID()}`;
          const { run } = await finishedRun(store, { agent });
          const kept = turn({ agent, status: 'done', updatedAt: cutoff + 1 });
          await store.writeTurn(kept, undefined);
          assert.equal((await store.lastFinishedTurns(agent, 5)).length, 2);
          await drain(store, { before: cutoff });
          assert.deepEqual(
            (await store.lastFinishedTurns(agent, 5)).map((t) => t.run),
            [kept.run],
          );
          await gone(store, run);
        }));
    });

    describe('runtime MCP servers', () => {
      it("lists a hub's servers sorted by name, whatever order they were added in", () =>
        withStore(async (store) => {
          const hub = `hub-${randomUUID()}`;
          for (const name of ['search', 'Billing', 'github', 'a-b', 'a_b'])
            await store.putMcpServer(mcpServer({ hub, name }));
          assert.deepEqual(
            (await store.listMcpServers(hub)).map((server) => server.name),
            ['Billing', 'a-b', 'a_b', 'github', 'search'],
          );
        }));

      it('replaces a server put again under the same name', () =>
        withStore(async (store) => {
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
        withStore(async (store) => {
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
        withStore(async (store) => {
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
        withStore(async (store) => {
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

    describe('values', () => {
      it('round-trips nested JSON, unicode and large strings', () =>
        withStore(async (store) => {
          const large = 'x'.repeat(1_000_000) + 'ende';
          const args = {
            order: {
              id: 'pi_123',
              items: [
                { sku: 'A-1', qty: 2, price: 19.99 },
                { sku: 'B', qty: null, tags: [] },
              ],
              nested: { a: { b: { c: [1, [2, [3]]] } } },
            },
            text: 'Grüße, 東京, 🚀, "quotes", \\backslash\\, new\nline, tab\t, nul\u0000 end',
            flags: [true, false, null],
            number: -1.5e-7,
            large,
          };
          const record = call({
            state: 'succeeded',
            arguments: args,
            answer: ok({ echoed: args, note: 'ok ✓' }, ['outside', 'ünïcode']),
          });
          await store.writeCall(record, undefined);
          assert.deepEqual(await store.getCall(record.run, record.call), record);
          const item = inboxItem({ arguments: args, reason: 'Needs a manager — über 500 €', labels: ['outside'] });
          await store.putInboxItem(item);
          assert.deepEqual(await store.getInboxItem(item.id), item);
          const remembered = {
            key: `key-${randomUUID()}`,
            digest: 'd',
            answer: ok(large),
            expiresAt: Number.MAX_SAFE_INTEGER,
          };
          await store.putRemembered(remembered);
          assert.deepEqual(await store.getRemembered(remembered.key, 0), remembered);
        }));

      it('keeps null and missing arguments apart, and error and parked answers whole', () =>
        withStore(async (store) => {
          const run = `run-${randomUUID()}`;
          const withNull = call({
            run,
            call: 'c1',
            state: 'failed',
            arguments: null,
            answer: { status: 'error', code: 'timeout', message: 'slow', labels: [] },
          });
          const without = call({
            run,
            call: 'c2',
            state: 'parked',
            arguments: undefined,
            inboxId: 'i1',
            answer: { status: 'parked', kind: 'approval', inboxId: 'i1', reason: 'why', labels: ['x'] },
          });
          await store.writeCall(withNull, undefined);
          await store.writeCall(without, undefined);
          assert.deepEqual(await store.getCall(run, 'c1'), withNull);
          assert.deepEqual(await store.getCall(run, 'c2'), without);
        }));

      it('keeps what a call spent (costUsd), through an update', () =>
        withStore(async (store) => {
          const started = call({ state: 'started', costUsd: 0.125 });
          await store.writeCall(started, undefined);
          assert.deepEqual(await store.getCall(started.run, started.call), started);
          const done = { ...started, state: 'succeeded' as const, answer: ok(1), costUsd: 0.375 };
          await store.writeCall(done, 'started');
          assert.deepEqual(await store.getCall(started.run, started.call), done);
        }));

      it('leaves optional fields absent when they were not set', () =>
        withStore(async (store) => {
          const record = call({ state: 'started' });
          await store.writeCall(record, undefined);
          const read = await store.getCall(record.run, record.call);
          assert.equal(read !== undefined && 'answer' in read, false);
          assert.equal(read !== undefined && 'inboxId' in read, false);
          assert.equal(read !== undefined && 'costUsd' in read, false);
        }));
    });

    if (options.durable) {
      describe('durability', () => {
        it('keeps everything after close and reopen', async () => {
          const run = `run-${randomUUID()}`;
          const agent = `agent-${randomUUID()}`;
          const record = call({ run, agent, state: 'started' });
          const item = inboxItem({ run, agent });
          const remembered = { key: `key-${randomUUID()}`, digest: 'd', answer: ok(7), expiresAt: 10_000 };
          await withStore(async (store) => {
            await store.writeCall(record, undefined);
            await store.putInboxItem(item);
            await store.putRemembered(remembered);
            await store.addSpend(agent, 500_000);
            await store.addLabels(run, ['outside']);
          });
          await withStore(async (store) => {
            assert.deepEqual(await store.getCall(run, record.call), record);
            assert.deepEqual(await store.getInboxItem(item.id), item);
            assert.deepEqual(await store.getRemembered(remembered.key, 0), remembered);
            assert.equal(await store.getSpend(agent), 500_000);
            assert.deepEqual(await store.getLabels(run), ['outside']);
            assert.equal(
              (await store.listCalls({ state: 'started' })).some((listed) => listed.run === run),
              true,
            );
          });
        });

        it('refuses work after close with a StoreError', async () => {
          const store = await makeStore();
          await store.close();
          await assert.rejects(store.getSpend('a'), { name: 'StoreError', message: /closed/ });
          await store.close(); // a second close is harmless
        });
      });

      describe('between two instances on the same data (two nodes)', () => {
        async function withTwo(test: (a: Store, b: Store) => Promise<void>): Promise<void> {
          const [a, b] = await Promise.all([makeStore(), makeStore()]);
          try {
            await test(a, b);
          } finally {
            await Promise.all([a.close(), b.close()]);
          }
        }

        it("sees the other node's lease, and takes it once it expires", () =>
          withTwo(async (a, b) => {
            const run = `run-${randomUUID()}`;
            assert.equal(await lease(a, run, 'node-a', 1_000, 100), true);
            assert.equal(await lease(b, run, 'node-b', 1_050, 100), false);
            assert.equal(await lease(b, run, 'node-b', 1_101, 100), true);
            assert.equal(await lease(a, run, 'node-a', 1_150, 100), false);
            await b.releaseRun(run, 'node-b');
            assert.equal(await lease(a, run, 'node-a', 1_160, 100), true);
          }));

        it('gives a run to exactly one of two nodes racing for it', () =>
          withTwo(async (a, b) => {
            const runs = range(10).map(() => `run-${randomUUID()}`);
            for (const run of runs) {
              const results = await Promise.all([
                lease(a, run, 'node-a', 1_000, 100),
                lease(b, run, 'node-b', 1_000, 100),
              ]);
              assert.equal(results.filter(Boolean).length, 1, `run ${run}: ${results.join(', ')}`);
            }
          }));

        it("sees the other node's turns and steps, and its compare-and-set", () =>
          withTwo(async (a, b) => {
            const record = turn({});
            await a.writeTurn(record, undefined);
            assert.deepEqual(await b.getTurn(record.run), record);
            const results = await Promise.all([
              a.writeTurn({ ...record, version: 2, data: { by: 'a' } }, 1),
              b.writeTurn({ ...record, version: 2, data: { by: 'b' } }, 1),
            ]);
            assert.equal(results.filter(Boolean).length, 1);
            assert.deepEqual(await a.getTurn(record.run), await b.getTurn(record.run));
            assert.deepEqual(await b.listTurns({ agent: record.agent }), [await a.getTurn(record.run)]);
            const step = { run: record.run, index: 0, data: { by: 'a' }, createdAt: 1 };
            assert.equal(await a.appendStep(step), true);
            assert.equal(await b.appendStep({ ...step, data: { by: 'b' } }), false);
            assert.deepEqual(await b.listSteps(record.run), [step]);
          }));

        it('sees the MCP servers the other node added and removed', () =>
          withTwo(async (a, b) => {
            const hub = `hub-${randomUUID()}`;
            const server = mcpServer({ hub, name: 'github' });
            await a.putMcpServer(server);
            assert.deepEqual(await b.listMcpServers(hub), [server]);
            assert.equal(await b.deleteMcpServer(hub, 'github'), true);
            assert.deepEqual(await a.listMcpServers(hub), []);
            assert.equal(await a.deleteMcpServer(hub, 'github'), false);
          }));
      });
    }
  });
}

function call(over: Partial<CallRecord> & { readonly state: CallState }): CallRecord {
  return {
    run: `run-${randomUUID()}`,
    call: 'c1',
    agent: 'triage',
    tool: 'orders/refund_order',
    arguments: { orderId: 'o-1', amount: 12.5 },
    idempotencyKey: `key-${randomUUID()}`,
    attempt: 1,
    updatedAt: 1_700_000_000_000,
    ...over,
  };
}

function turn(over: Partial<TurnRecord>): TurnRecord {
  return {
    run: `run-${randomUUID()}`,
    agent: `agent-${randomUUID()}`,
    status: 'running',
    version: 1,
    data: { messages: [{ role: 'user', content: 'refund order o-1' }] },
    createdAt: 1_700_000_000_000,
    updatedAt: 1_700_000_000_000,
    ...over,
  };
}

function mcpServer(over: Partial<McpServerRecord> & { readonly hub: string; readonly name: string }): McpServerRecord {
  return { options: { url: 'http://127.0.0.1:3000/mcp' }, updatedAt: 1_700_000_000_000, ...over };
}

function inboxItem(over: Partial<InboxRecord>): InboxRecord {
  return {
    id: `inbox-${randomUUID()}`,
    kind: 'approval',
    status: 'pending',
    agent: 'triage',
    run: `run-${randomUUID()}`,
    call: 'c1',
    tool: 'orders/refund_order',
    arguments: { orderId: 'o-1' },
    digest: 'f'.repeat(64),
    labels: [],
    reason: 'refunds ask a person',
    createdAt: 1_700_000_000_000,
    budgetUsd: 2,
    ...over,
  };
}

function ok(output: unknown, labels: readonly string[] = []) {
  return { status: 'ok' as const, output, labels };
}

function range(count: number): number[] {
  return Array.from({ length: count }, (_, i) => i);
}

/** A clock for a store that takes one (memory, SQLite), and the contract's hold on it. */
export function settableClock(): { readonly clock: { now(): number }; readonly contract: ContractClock } {
  let now = 0;
  return { clock: { now: () => now }, contract: { at: async (ms) => void (now = ms) } };
}
