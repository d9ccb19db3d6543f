import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Deadlines } from '../../src/runner/deadlines.js';

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('Deadlines', () => {
  it('expires each deadline after its time, in order, across durations', async () => {
    const deadlines = new Deadlines();
    const expired: string[] = [];
    deadlines.add(60, () => expired.push('60 ms'));
    deadlines.add(20, () => expired.push('20 ms, first'));
    deadlines.add(20, () => expired.push('20 ms, second'));
    const start = performance.now();
    await wait(40);
    assert.deepEqual(expired, ['20 ms, first', '20 ms, second']);
    await wait(60);
    assert.deepEqual(expired, ['20 ms, first', '20 ms, second', '60 ms']);
    assert.ok(performance.now() - start >= 60);
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
    await wait(50);
    assert.deepEqual(expired, [2]);
  });

  it('waits again when the deadline it woke for was cancelled, and expires the next in time', async () => {
    const deadlines = new Deadlines();
    const expired: number[] = [];
    deadlines.cancel(deadlines.add(10, () => expired.push(1)));
    deadlines.add(40, () => expired.push(2));
    await wait(25);
    assert.deepEqual(expired, []);
    await wait(40);
    assert.deepEqual(expired, [2]);
  });

  it('keeps the process alive while a deadline is pending, and not after it is cancelled', () => {
    const module = fileURLToPath(new URL('../../src/runner/deadlines.js', import.meta.url));
    const run = (script: string) => {
      const started = Date.now();
      const child = spawnSync(process.execPath, ['--input-type=module', '-e', `import { Deadlines } from ${JSON.stringify(module)};\n${script}`], { encoding: 'utf8' });
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
