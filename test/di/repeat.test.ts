import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { repeat } from '../../src/di/repeat.js';
import { PassQueue } from '../../src/runner/pass-queue.js';
import { manualTime } from '../../src/testing/index.js';

/** Passes that each wait until the test ends them, counting how many started. */
function heldPasses() {
  const ends: (() => void)[] = [];
  let failNext = false;
  const passes = new PassQueue<void>(
    () =>
      new Promise<void>((resolve, reject) => {
        const fail = failNext;
        failNext = false;
        ends.push(() => (fail ? reject(new Error('pass failed')) : resolve()));
      }),
  );
  return {
    passes,
    get started() {
      return ends.length;
    },
    /** Ends the pass under way. */
    end: () => ends[ends.length - 1]!(),
    failNextPass: () => {
      failNext = true;
    },
  };
}

describe('repeat (the recovery and retention schedule)', () => {
  it('runs the first pass ms after it starts, on the timers it is given', async () => {
    const time = manualTime();
    const held = heldPasses();
    const stop = repeat(held.passes, time, 1_000, () => assert.fail('no pass failed'));
    await time.advance(999);
    assert.equal(held.started, 0);
    await time.advance(1);
    assert.equal(held.started, 1);
    stop();
  });

  it('sets the next pass ms after the last one ended, so a slow pass is never overlapped', async () => {
    const time = manualTime();
    const held = heldPasses();
    const stop = repeat(held.passes, time, 1_000, () => assert.fail('no pass failed'));
    await time.advance(1_000);
    assert.equal(held.started, 1);
    await time.advance(5_000);
    assert.equal(held.started, 1, 'no second pass while the first runs');
    held.end();
    await time.advance(999);
    assert.equal(held.started, 1, 'the next is due 1 000 ms after the first ended');
    await time.advance(1);
    assert.equal(held.started, 2);
    stop();
  });

  it('gives a failed pass to onError and still sets the next', async () => {
    const time = manualTime();
    const held = heldPasses();
    const errors: string[] = [];
    const stop = repeat(held.passes, time, 1_000, (error) => errors.push((error as Error).message));
    held.failNextPass();
    await time.advance(1_000);
    held.end();
    await time.advance(0);
    assert.deepEqual(errors, ['pass failed']);
    await time.advance(1_000);
    assert.equal(held.started, 2);
    stop();
  });

  it('sets no timer once stopped, nor after a pass that was under way ends', async () => {
    const time = manualTime();
    const held = heldPasses();
    const stop = repeat(held.passes, time, 1_000, () => assert.fail('no pass failed'));
    await time.advance(1_000);
    stop();
    held.end();
    await time.advance(10_000);
    assert.equal(held.started, 1);
    assert.equal(time.pending, 0);
  });

  it('sets no timer for Infinity', () => {
    const time = manualTime();
    repeat(heldPasses().passes, time, Infinity, () => assert.fail('no pass failed'));
    assert.equal(time.pending, 0);
  });
});
