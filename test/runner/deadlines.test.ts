import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Deadlines } from '../../src/runner/deadlines.js';

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Waits until `done()` holds; a deadline that never expires fails the test by the runner's time-out. */
const until = async (done: () => boolean) => {
  while (!done()) await wait(5);
};

describe('Deadlines', () => {
  it('expires each deadline after its time, in order, across durations', async () => {
    const deadlines = new Deadlines();
    const start = performance.now();
    const expired: Array<[string, number]> = [];
    const record = (name: string) => () => expired.push([name, performance.now() - start]);
    deadlines.add(60, record('60 ms'));
    deadlines.add(20, record('20 ms, first'));
    deadlines.add(20, record('20 ms, second'));
    await until(() => expired.length === 3);
    assert.deepEqual(
      expired.map(([name]) => name),
      ['20 ms, first', '20 ms, second', '60 ms'],
    );
    // Never before its time; how late depends on the machine's load, so only the order and the floor are held.
    for (const [name, after] of expired)
      assert.ok(after >= Number.parseInt(name, 10), `${name} expired after ${after} ms`);
  });

  it('never expires a cancelled deadline, whether at the head of its queue or behind it', async () => {
    const deadlines = new Deadlines();
    const expired: number[] = [];
    const first = deadlines.add(20, () => expired.push(1));
    deadlines.add(20, () => expired.push(2));
    const third = deadlines.add(20, () => expired.push(3));
    deadlines.cancel(third);
    deadlines.cancel(first);
    deadlines.cancel(first); // twice changes nothing
    // The cancelled ones were due with the second: had they not been cancelled, they would be in by now.
    await until(() => expired.length > 0);
    await wait(30);
    assert.deepEqual(expired, [2]);
  });

  it('waits again when the deadline it woke for was cancelled, and expires the next in time', async () => {
    const deadlines = new Deadlines();
    const start = performance.now();
    const expired: Array<[number, number]> = [];
    deadlines.cancel(deadlines.add(10, () => expired.push([1, performance.now() - start])));
    deadlines.add(40, () => expired.push([2, performance.now() - start]));
    await until(() => expired.length > 0);
    await wait(20);
    assert.deepEqual(
      expired.map(([id]) => id),
      [2],
    );
    assert.ok(expired[0]![1] >= 40, `expired after ${expired[0]![1]} ms, before its 40 ms`);
  });

  it('keeps the process alive while a deadline is pending, and not after it is cancelled', () => {
    const module = fileURLToPath(new URL('../../src/runner/deadlines.js', import.meta.url));
    const run = (script: string) => {
      const started = Date.now();
      const child = spawnSync(
        process.execPath,
        ['--input-type=module', '-e', `import { Deadlines } from ${JSON.stringify(module)};\n${script}`],
        { encoding: 'utf8' },
      );
      assert.equal(child.status, 0, child.stderr);
      return { stdout: child.stdout.trim(), ms: Date.now() - started };
    };
    // A pending deadline holds the process until it expires.
    assert.equal(run(`new Deadlines().add(300, () => console.log('expired'));`).stdout, 'expired');
    // A cancelled one does not hold it for its 60 s.
    const cancelled = run(`const d = new Deadlines(); d.cancel(d.add(60_000, () => console.log('expired')));`);
    assert.equal(cancelled.stdout, '');
    assert.ok(cancelled.ms < 30_000, `the process stayed ${cancelled.ms} ms`);
  });
});
