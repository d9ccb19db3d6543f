import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryStore } from '../../src/index.js';
import { manualTime } from '../../src/testing/index.js';
import { RunLeases } from '../../src/runner/run-leases.js';
import { SlowReleases } from './slow-releases.js';
import { leaseRun } from '../../src/store/journal-writes.js';

/**
 * Closing a node's leases while lease operations are under way: what `close` gives up is given up in the
 * store by the time it returns, and a release never lands after an acquire that took the run again (the
 * node would drive the run with no lease in the store, and another node could take it over).
 */

describe('RunLeases.close', () => {
  it('leaves the lease in the store of a run an acquire under way took again', async () => {
    let now = 0;
    const store = new MemoryStore();
    // Timers that never fire: no renewal refreshes the lease meanwhile.
    const a = new RunLeases(store, { now: () => now }, manualTime(), 'a', 60_000, 250, () => undefined);
    assert.equal(await a.acquire('r'), true);
    // Less than half the lease left: the next acquire goes to the store, and is under way while `close` runs.
    now = 40_000;
    const taking = a.acquire('r');
    const closing = a.close();
    assert.equal(await taking, true, 'the acquire took the run: this node drives it');
    await closing;
    assert.equal(await leaseRun(store, 'r', 'b', 60_000), false, "the run's lease is still a's in the store");
  });

  it('returns once the releases a sweep had under way are in the store', async () => {
    const time = manualTime();
    const store = new SlowReleases();
    const a = new RunLeases(store, time, time, 'a', 60_000, 10, () => undefined);
    assert.equal(await a.acquire('r'), true);
    a.release('r');
    await time.advance(9);
    assert.equal(store.releasing, false, 'the run is kept for its idle window');
    await time.advance(1);
    assert.equal(store.releasing, true, 'the sweep is giving the lease up');
    let closed = false;
    const closing = a.close().then(() => (closed = true));
    await time.advance(60_000);
    assert.equal(closed, false, 'close waits for the release under way');
    store.open();
    await closing;
    assert.equal(await leaseRun(store, 'r', 'b', 60_000), true, 'another node can take the run once close returned');
  });
});
