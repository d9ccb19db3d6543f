import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Deadlines } from '../../src/runner/deadlines.js';
import { manualTime } from '../../src/testing/index.js';

describe('Deadlines', () => {
  it('expires each deadline at its time, in order, across durations', async () => {
    const time = manualTime();
    const deadlines = new Deadlines(time, time);
    const expired: Array<[string, number]> = [];
    const record = (name: string) => () => expired.push([name, time.now()]);
    deadlines.add(60, record('60 ms'));
    deadlines.add(20, record('20 ms, first'));
    deadlines.add(20, record('20 ms, second'));
    await time.advance(19);
    assert.deepEqual(expired, [], 'nothing before its time');
    await time.advance(41);
    assert.deepEqual(expired, [
      ['20 ms, first', 20],
      ['20 ms, second', 20],
      ['60 ms', 60],
    ]);
    assert.equal(time.pending, 0, 'no timer left once every deadline expired');
  });

  it('never expires a cancelled deadline, whether at the head of its queue or behind it', async () => {
    const time = manualTime();
    const deadlines = new Deadlines(time, time);
    const expired: number[] = [];
    const first = deadlines.add(20, () => expired.push(1));
    deadlines.add(20, () => expired.push(2));
    const third = deadlines.add(20, () => expired.push(3));
    deadlines.cancel(third);
    deadlines.cancel(first);
    deadlines.cancel(first); // twice changes nothing
    await time.advance(10_000);
    assert.deepEqual(expired, [2]);
  });

  it('waits again when the deadline it woke for was cancelled, and expires the next at its time', async () => {
    const time = manualTime();
    const deadlines = new Deadlines(time, time);
    const expired: Array<[number, number]> = [];
    deadlines.cancel(deadlines.add(10, () => expired.push([1, time.now()])));
    deadlines.add(40, () => expired.push([2, time.now()]));
    await time.advance(39);
    assert.deepEqual(expired, []);
    await time.advance(1_000);
    assert.deepEqual(expired, [[2, 40]]);
  });

  it('keeps the process alive while a deadline is pending, and not after it is cancelled', () => {
    const module = (path: string) => JSON.stringify(fileURLToPath(new URL(path, import.meta.url)));
    const imports =
      `import { Deadlines } from ${module('../../src/runner/deadlines.js')};\n` +
      `import { systemClock, systemTimers } from ${module('../../src/clock.js')};\n` +
      `const make = () => new Deadlines(systemClock, systemTimers);\n`;
    const run = (script: string) => {
      const started = Date.now();
      const child = spawnSync(process.execPath, ['--input-type=module', '-e', imports + script], {
        encoding: 'utf8',
      });
      assert.equal(child.status, 0, child.stderr);
      return { stdout: child.stdout.trim(), ms: Date.now() - started };
    };
    // A pending deadline holds the process until it expires.
    assert.equal(run(`make().add(300, () => console.log('expired'));`).stdout, 'expired');
    // A cancelled one does not hold it for its 60 s.
    const cancelled = run(`const d = make(); d.cancel(d.add(60_000, () => console.log('expired')));`);
    assert.equal(cancelled.stdout, '');
    assert.ok(cancelled.ms < 30_000, `the process stayed ${cancelled.ms} ms`);
  });
});
