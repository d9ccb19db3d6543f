import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { addLabels, addSpend, leaseRun, releaseRun, writeCall } from '../store/journal-writes.js';
import { call, ok, range, type ContractContext } from './store-contract-kit.js';

/** Spend, labels, the synchronous journal (`sync`) and run leases: the Store contract's single writes, each a batch of one through `writeJournal`. */
export function journalContract({ withStore, lease, options }: ContractContext): void {
  describe('spend', () => {
    it('is 0 for an agent that spent nothing', () =>
      withStore(async (store) => {
        assert.equal(await store.getSpend(`agent-${randomUUID()}`), 0);
      }));

    it('adds 50 concurrent amounts without losing one', () =>
      withStore(async (store) => {
        const agent = `agent-${randomUUID()}`;
        const totals = await Promise.all(range(50).map(() => addSpend(store, agent, 250_000)));
        assert.equal(await store.getSpend(agent), 12_500_000);
        assert.equal(Math.max(...totals), 12_500_000);
        assert.equal(new Set(totals).size, 50, 'each add returns the total right after it');
      }));

    it('keeps money in whole micro-dollars: ten $0.10 make exactly $1', () =>
      withStore(async (store) => {
        const agent = `agent-${randomUUID()}`;
        for (let i = 0; i < 10; i++) await addSpend(store, agent, 100_000);
        assert.equal(await store.getSpend(agent), 1_000_000);
        // Past what a 32-bit integer holds: $5 000.
        assert.equal(await addSpend(store, agent, 5_000_000_000), 5_001_000_000);
      }));

    it('keeps each agent apart', () =>
      withStore(async (store) => {
        const [a, b] = [`agent-${randomUUID()}`, `agent-${randomUUID()}`];
        assert.equal(await addSpend(store, a, 1_500_000), 1_500_000);
        assert.equal(await addSpend(store, b, 125_000), 125_000);
        assert.equal(await addSpend(store, a, 2_000_000), 3_500_000);
        assert.equal(await store.getSpend(b), 125_000);
      }));
  });

  describe('labels', () => {
    it('returns only the labels that were new, in the order given', () =>
      withStore(async (store) => {
        const run = `run-${randomUUID()}`;
        assert.deepEqual(await addLabels(store, run, ['outside', 'pii']), ['outside', 'pii']);
        assert.deepEqual(await addLabels(store, run, ['secret', 'pii', 'outside', 'external']), ['secret', 'external']);
        assert.deepEqual(await addLabels(store, run, ['pii']), []);
        assert.deepEqual(await store.getLabels(run), ['outside', 'pii', 'secret', 'external']);
      }));

    it('keeps each run apart', () =>
      withStore(async (store) => {
        const [a, b] = [`run-${randomUUID()}`, `run-${randomUUID()}`];
        await addLabels(store, a, ['outside']);
        assert.deepEqual(await addLabels(store, b, ['outside']), ['outside']);
        assert.deepEqual(await store.getLabels(`run-${randomUUID()}`), []);
      }));

    it('gives a label to exactly one of 10 concurrent adds', () =>
      withStore(async (store) => {
        const run = `run-${randomUUID()}`;
        const results = await Promise.all(range(10).map(() => addLabels(store, run, ['outside'])));
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
          assert.equal(await writeCall(store, { ...started, attempt: 2 }, undefined), false);
          assert.equal(sync.writeCall({ ...started, attempt: 3 }, undefined), false);
          const done = { ...started, state: 'succeeded' as const, answer: ok('done'), updatedAt: 2 };
          assert.equal(sync.writeCall(done, 'started'), true);
          assert.equal(sync.writeCall({ ...done, state: 'failed' }, 'started'), false);
          assert.deepEqual(await store.getCall(started.run, started.call), done);
          await addLabels(store, started.run, ['outside', 'pii']);
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
        await releaseRun(store, run, 'node-b');
        assert.equal(await lease(store, run, 'node-b', 1_010, 100), false, 'a release by another node changes nothing');
        await releaseRun(store, run, 'node-a');
        assert.equal(await lease(store, run, 'node-b', 1_020, 100), true);
      }));

    it('releases a run nobody holds without complaint', () =>
      withStore(async (store) => {
        await releaseRun(store, `run-${randomUUID()}`, 'node-a');
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
        await writeCall(store, started, undefined);
        await options.clock.at(1_000);
        assert.equal(await leaseRun(store, run, 'node-a', 100, 'no-such-call'), false, 'no such call');
        assert.equal(await leaseRun(store, run, 'node-a', 100, started.call), true, 'free, and the call is started');
        assert.equal(await leaseRun(store, run, 'node-b', 100, started.call), false, 'node-a holds it');
        await writeCall(store, { ...started, state: 'succeeded', answer: ok('done'), updatedAt: 2 }, 'started');
        await releaseRun(store, run, 'node-a');
        assert.equal(await leaseRun(store, run, 'node-b', 100, started.call), false, 'free, but the call was answered');
        assert.equal(await leaseRun(store, run, 'node-b', 100), true, 'free');
      }));

    it('gives an expired run to exactly one of 10 racing nodes', () =>
      withStore(async (store) => {
        const run = `run-${randomUUID()}`;
        await lease(store, run, 'node-dead', 1_000, 100);
        const results = await Promise.all(range(10).map((i) => lease(store, run, `node-${i}`, 2_000, 100)));
        assert.equal(results.filter(Boolean).length, 1);
      }));
  });
}
