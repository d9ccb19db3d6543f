import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { CallContext } from '../../src/runner/call-context.js';

const context = () => new CallContext('agent', 'run', 'call', 1, 'run:call', []);

describe('CallContext', () => {
  it('aborts the real signal a tool read, with the reason', () => {
    const ctx = context();
    const signal = ctx.signal;
    const reason = new Error('timed out');
    ctx.abort(reason);
    assert.equal(signal.aborted, true);
    assert.equal(signal.reason, reason);
  });

  it('gives a signal read after the stop already aborted', () => {
    const ctx = context();
    ctx.abort('stopped');
    assert.equal(ctx.signal.aborted, true);
    assert.equal(ctx.signal.reason, 'stopped');
  });

  describe('lightSignal (for the MCP SDK)', () => {
    it('reads like an AbortSignal before and after the stop', () => {
      const ctx = context();
      const signal = ctx.lightSignal;
      assert.equal(signal.aborted, false);
      assert.doesNotThrow(() => signal.throwIfAborted());
      const reason = new Error('stopped by the caller');
      ctx.abort(reason);
      assert.equal(signal.aborted, true);
      assert.equal(signal.reason, reason);
      assert.throws(
        () => signal.throwIfAborted(),
        (error) => error === reason,
      );
    });

    it("calls each 'abort' listener once, not removed ones nor other types, and onabort", () => {
      const ctx = context();
      const signal = ctx.lightSignal;
      const heard: string[] = [];
      const first = (event: Event) => heard.push(`first:${event.type}`);
      const removed = () => heard.push('removed');
      signal.addEventListener('abort', first);
      signal.addEventListener('abort', first); // the same listener twice counts once, as on EventTarget
      signal.addEventListener('abort', removed);
      signal.removeEventListener('abort', removed);
      signal.addEventListener('other' as 'abort', () => heard.push('other'));
      signal.addEventListener('abort', { handleEvent: () => heard.push('object') });
      signal.onabort = () => heard.push('onabort');
      ctx.abort('x');
      ctx.abort('again'); // a second stop changes nothing
      assert.deepEqual(heard, ['onabort', 'first:abort', 'object']);
      assert.equal(signal.reason, 'x');
    });

    it('goes on to the other listeners when one throws, and reports its error as uncaught', () => {
      // In a child process: the error surfaces as an uncaught exception, as an AbortSignal's does.
      const module = new URL('../../src/runner/call-context.js', import.meta.url).href;
      const script = `
        import { CallContext } from ${JSON.stringify(module)};
        process.on('uncaughtException', (error) => console.log('uncaught: ' + error.message));
        const ctx = new CallContext('a', 'r', 'c', 1, 'r:c', []);
        ctx.lightSignal.addEventListener('abort', () => { throw new Error('listener broke'); });
        ctx.lightSignal.addEventListener('abort', () => console.log('second heard it'));
        ctx.abort('stop');
        console.log('abort returned, aborted=' + ctx.lightSignal.aborted);`;
      const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
      assert.equal(child.status, 0, child.stderr);
      assert.deepEqual(child.stdout.trim().split('\n'), [
        'second heard it',
        'abort returned, aborted=true',
        'uncaught: listener broke',
      ]);
    });
  });
});
