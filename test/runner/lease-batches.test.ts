import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { systemClock, systemTimers } from '../../src/clock.js';
import { SqliteStore } from '../../src/index.js';
import { LEASE_IDLE_MS, RunLeases } from '../../src/runner/run-leases.js';
import { manualTime } from '../../src/testing/index.js';
import type { JournalWrite } from '../../src/store/store.js';
import { scratchStores } from '../crash/scratch-stores.js';
import { walCommits } from '../store/commit-counters.js';
import { SlowReleases } from './slow-releases.js';
import { leaseRun } from '../../src/store/journal-writes.js';

/**
 * A node's leases are renewed, and given up once their runs go idle, in one commit for all the runs at a
 * time: an agent starts a new run every turn, and a commit a run for each would cost more than the turn.
 * Counted in SQLite's write-ahead log.
 */
const { dir } = scratchStores('lease-batches');
const RUNS = 20;
const runs = Array.from({ length: RUNS }, (_, i) => `run-${i}`);

describe('RunLeases in batches', () => {
  it('gives up the leases of runs gone idle together in one commit', async () => {
    const path = join(dir, 'release.db');
    const time = manualTime(Date.now());
    const store = new SqliteStore({ path, clock: time });
    const a = new RunLeases(store, time, time, 'a', 60_000, 50, () => undefined);
    try {
      for (const run of runs) assert.equal(await a.acquire(run), true);
      const before = walCommits(path);
      for (const run of runs) a.release(run);
      const free = async () => (await Promise.all(runs.map((run) => leaseRun(store, run, 'probe', 1)))).every(Boolean);
      await time.advance(49);
      assert.equal(walCommits(path), before, 'kept for their idle window');
      await time.advance(1);
      // Long after: whatever else the sweeps would commit is in.
      await time.advance(1_000);
      // Another node can take every run now: probing takes each lease and lets it lapse at once.
      const releases = walCommits(path) - before;
      assert.equal(await free(), true, 'every lease given up');
      assert.equal(releases, 1, `${releases} commits to give up ${RUNS} leases`);
    } finally {
      await a.close();
      await store.close();
    }
  });

  it('renews every lease it holds in one commit', async () => {
    const path = join(dir, 'renew.db');
    // Records what each renewal writes: one batch for all the runs, or a commit a run.
    const batches: string[][] = [];
    let alone = 0;
    class Recording extends SqliteStore {
      override async writeJournal(writes: readonly JournalWrite[]): Promise<boolean[]> {
        // A lease written alone (`leaseRun`) is counted apart from the batches.
        if (writes.length === 1 && 'lease' in writes[0]!) alone++;
        else batches.push(writes.flatMap((write) => ('lease' in write ? [write.lease.run] : [])));
        return super.writeJournal(writes);
      }
    }
    const time = manualTime(Date.now());
    const store = new Recording({ path, clock: time });
    // A lease of 300 ms is renewed every 100 ms.
    const a = new RunLeases(store, time, time, 'a', 300, LEASE_IDLE_MS, () => undefined);
    try {
      for (const run of runs) assert.equal(await a.acquire(run), true);
      const taken = alone;
      await time.advance(99);
      assert.equal(batches.length, 0, 'not renewed before a third of the lease');
      await time.advance(101);
      assert.equal(batches.length, 2, 'renewed twice');
      for (const batch of batches) assert.deepEqual(batch, runs, 'every lease in one batch');
      assert.equal(alone, taken, 'no lease renewed alone');
      for (const run of runs) assert.equal(await leaseRun(store, run, 'b', 1_000), false, `${run} still held by a`);
    } finally {
      await a.close();
      await store.close();
    }
  });

  it('takes a run again only after its lease was given up in the store, so the release cannot undo the new lease', async () => {
    // The acquire comes while the release is under way.
    const time = manualTime();
    const store = new SlowReleases();
    const a = new RunLeases(store, time, time, 'a', 60_000, 20, () => undefined);
    try {
      assert.equal(await a.acquire('r'), true);
      a.release('r');
      await time.advance(20);
      assert.equal(store.releasing, true);
      const taking = a.acquire('r');
      store.open();
      assert.equal(await taking, true);
      assert.equal(await leaseRun(store, 'r', 'b', 1_000), false, "the new lease is a's, in the store");
    } finally {
      await a.close();
    }
  });

  it("takes a new run's lease in the same commit as the writes that make the run", async () => {
    const path = join(dir, 'new.db');
    const store = new SqliteStore({ path });
    const a = new RunLeases(store, systemClock, systemTimers, 'a', 60_000, LEASE_IDLE_MS, () => undefined);
    try {
      const before = walCommits(path);
      const record = {
        run: 'fresh',
        agent: 'x',
        status: 'running' as const,
        version: 1,
        data: undefined,
        createdAt: 1,
        updatedAt: 1,
      };
      assert.deepEqual(await a.takeNew('fresh', [{ turn: record, expectedVersion: undefined }]), [true]);
      assert.equal(walCommits(path) - before, 1);
      assert.equal((await store.getTurn('fresh'))?.version, 1);
      assert.equal(await leaseRun(store, 'fresh', 'b', 1_000), false, 'held by a');
      assert.equal(
        await new RunLeases(store, systemClock, systemTimers, 'b', 60_000, LEASE_IDLE_MS, () => undefined).takeNew(
          'fresh',
          [],
        ),
        undefined,
        'b cannot take it',
      );
    } finally {
      await a.close();
      await store.close();
    }
  });
});
