import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PassQueue } from '../../src/runner/pass-queue.js';
import { manualTime } from '../../src/testing/index.js';

/** A pass a test ends by hand, counting how many run at once. */
function passes() {
  const ends: Array<() => void> = [];
  const state = { started: 0, live: 0, maxLive: 0 };
  const pass = (): Promise<number> => {
    const n = ++state.started;
    state.maxLive = Math.max(state.maxLive, ++state.live);
    return new Promise<number>((resolve) =>
      ends.push(() => {
        state.live--;
        resolve(n);
      }),
    );
  };
  return { pass, state, end: () => ends.shift()!() };
}

describe('PassQueue', () => {
  it('never runs two passes at once: asked while one runs, it starts the next once that one ended', async () => {
    const time = manualTime();
    const p = passes();
    const serial = new PassQueue(p.pass);
    const first = serial.run();
    const second = serial.run();
    await time.advance(0);
    assert.equal(p.state.started, 1, 'the second waits for the first');
    p.end();
    assert.equal(await first, 1);
    await time.advance(0);
    assert.equal(p.state.started, 2, 'then the second starts');
    p.end();
    assert.equal(await second, 2);
    assert.equal(p.state.maxLive, 1);
  });

  it('gives everyone who asks while a pass runs the one next pass, which starts after they asked', async () => {
    const time = manualTime();
    const p = passes();
    const serial = new PassQueue(p.pass);
    const first = serial.run();
    const asked = [serial.run(), serial.run(), serial.run()];
    p.end();
    await first;
    await time.advance(0);
    p.end();
    assert.deepEqual(await Promise.all(asked), [2, 2, 2]);
    assert.equal(p.state.started, 2);
  });

  it('stop waits for the pass under way and the one asked for next', async () => {
    const time = manualTime();
    const p = passes();
    const serial = new PassQueue(p.pass);
    void serial.run();
    void serial.run();
    let stopped = false;
    const stopping = serial.stop().then(() => (stopped = true));
    p.end();
    await time.advance(0);
    assert.equal(stopped, false, 'the next pass is still to run');
    p.end();
    await stopping;
    assert.equal(p.state.started, 2);
  });
});
