import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { addLabels, addSpend, appendStep, writeCall } from '../store/journal-writes.js';
import type { JournalWrite, TurnRecord } from '../store/store.js';
import { call, ok, range, turn, type ContractContext } from './store-contract-kit.js';

/** Several journal writes in one transaction (`writeJournal`): the Store contract. */
export function batchesContract({ withStore, lease, options }: ContractContext): void {
  describe('writeJournal, several writes in one transaction', () => {
    it('answers each write as its namesake would, and keeps the ones that took', () =>
      withStore(async (store) => {
        const run = `run-${randomUUID()}`;
        const older = call({ run, call: 'c0', state: 'started' });
        await writeCall(store, older, undefined);
        await appendStep(store, { run, index: 0, data: 'model step', createdAt: 1 });
        const final = call({ run, call: 'c2', state: 'succeeded', answer: ok('final') });
        await writeCall(store, final, undefined);
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
        await writeCall(store, started, undefined);
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
        await appendStep(store, { run, index: 0, data: 'model step', createdAt: 1 });
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
        assert.equal(await addSpend(store, agent, 9), 100_010);
      }));

    it('adds labels to runs with the batch, in order, each once', () =>
      withStore(async (store) => {
        const run = `run-${randomUUID()}`;
        await addLabels(store, run, ['pii']);
        const results = await store.writeJournal([
          { labels: { run, labels: ['outside', 'pii'] } },
          { step: { run, index: 0, data: 'model step', createdAt: 1 } },
          { labels: { run, labels: ['outside', 'secret'] } },
          { labels: { run: `${run}-other`, labels: ['outside'] } },
        ]);
        assert.deepEqual(results, [true, true, true, true]);
        assert.deepEqual(await store.getLabels(run), ['pii', 'outside', 'secret']);
        assert.deepEqual(await store.getLabels(`${run}-other`), ['outside']);
        assert.deepEqual(await addLabels(store, run, ['outside', 'new']), ['new']);
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
        assert.equal(await lease(store, run, 'node-b', 1_160, 100), false, 'a release by another node changes nothing');
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
        await writeCall(store, answeredElsewhere, undefined);
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
}
