import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { appendStep, writeTurn } from '../store/journal-writes.js';
import type { TurnRecord } from '../store/store.js';
import { range, turn, type ContractContext } from './store-contract-kit.js';

/** Agent turns and their steps: the Store contract. */
export function turnsContract({ withStore }: ContractContext): void {
  describe('turns', () => {
    it('creates a turn only when it has none (expected undefined)', () =>
      withStore(async (store) => {
        const first = turn({});
        assert.equal(await writeTurn(store, first, undefined), true);
        assert.equal(await writeTurn(store, { ...first, status: 'failed' }, undefined), false);
        assert.deepEqual(await store.getTurn(first.run), first);
      }));

    it('updates a turn only while its version is the expected one', () =>
      withStore(async (store) => {
        const first = turn({});
        await writeTurn(store, first, undefined);
        const second: TurnRecord = {
          ...first,
          version: 2,
          status: 'parked',
          data: { step: 2 },
          updatedAt: first.updatedAt + 5,
        };
        assert.equal(await writeTurn(store, second, 0), false);
        assert.equal(await writeTurn(store, second, 2), false);
        assert.equal(await writeTurn(store, second, 1), true);
        assert.equal(await writeTurn(store, { ...second, version: 3, status: 'done' }, 1), false, 'version 1 is gone');
        assert.deepEqual(await store.getTurn(first.run), second);
      }));

    it('refuses a compare-and-set on a turn that does not exist', () =>
      withStore(async (store) => {
        const record = turn({ version: 2 });
        assert.equal(await writeTurn(store, record, 1), false);
        assert.equal(await store.getTurn(record.run), undefined);
      }));

    it('lets exactly one of 10 concurrent first writes win', () =>
      withStore(async (store) => {
        const base = turn({});
        const results = await Promise.all(
          range(10).map((i) => writeTurn(store, { ...base, data: { writer: i } }, undefined)),
        );
        assert.equal(results.filter(Boolean).length, 1);
        assert.deepEqual((await store.getTurn(base.run))?.data, { writer: results.indexOf(true) });
      }));

    it('lets exactly one of 10 concurrent writers of the same version win', () =>
      withStore(async (store) => {
        const base = turn({});
        await writeTurn(store, base, undefined);
        const results = await Promise.all(
          range(10).map((i) => writeTurn(store, { ...base, version: 2, data: { writer: i } }, 1)),
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
        await writeTurn(store, withData, undefined);
        await writeTurn(store, withNull, undefined);
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
          await writeTurn(store, turn({ run: runs[id]!, agent, createdAt }), undefined);
        // Updating a turn does not move it.
        const t2 = (await store.getTurn(runs.t2!))!;
        await writeTurn(store, { ...t2, version: 2, updatedAt: 99 }, 1);
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
        for (const record of records) await writeTurn(store, record, undefined);
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
        await writeTurn(store, record, undefined);
        await writeTurn(store, { ...record, version: 2, status: 'done' }, 1);
        assert.deepEqual(await store.listTurns({ agent: record.agent, status: 'running' }), []);
        assert.equal((await store.listTurns({ agent: record.agent, status: 'done' })).length, 1);
      }));

    it('returns at most limit turns, the oldest, with or without filters', () =>
      withStore(async (store) => {
        const agent = `agent-${randomUUID()}`;
        // Far in the past, so these are the oldest turns even beside those other tests left behind.
        const base = -1_000_000 - Math.floor(Math.random() * 1_000_000);
        const records = [3, 1, 2].map((offset) => turn({ agent, createdAt: base + offset }));
        for (const record of records) await writeTurn(store, record, undefined);
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
        assert.equal(await appendStep(store, first), true);
        assert.equal(await appendStep(store, { ...first, data: { text: 'second' }, createdAt: 2 }), false);
        assert.deepEqual(await store.listSteps(run), [first]);
      }));

    it('lets exactly one of 10 concurrent writes of one index win', () =>
      withStore(async (store) => {
        const run = `run-${randomUUID()}`;
        const results = await Promise.all(
          range(10).map((i) => appendStep(store, { run, index: 3, data: { writer: i }, createdAt: 1 })),
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
        for (const index of [2, 0, 10, 1]) await appendStep(store, { run, index, data: index, createdAt: 100 - index });
        await appendStep(store, { run: `run-${randomUUID()}`, index: 5, data: 'another run', createdAt: 1 });
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
        for (const step of steps) await appendStep(store, step);
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
        for (const t of turns) await writeTurn(store, t, undefined);
        await writeTurn(store, turn({ agent: `agent-${randomUUID()}`, status: 'done', updatedAt: 2_000 }), undefined);
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
        await writeTurn(store, early, undefined);
        await writeTurn(store, late, undefined);
        assert.deepEqual(await store.lastFinishedTurns(agent, 5), [early]);
        const finished = { ...late, status: 'done' as const, version: 2, updatedAt: 20 };
        await writeTurn(store, finished, 1);
        assert.deepEqual(await store.lastFinishedTurns(agent, 1), [finished]);
        assert.deepEqual(await store.lastFinishedTurns(agent, 5), [early, finished]);
      }));
  });
}
