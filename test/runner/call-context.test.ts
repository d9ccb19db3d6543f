import assert from 'node:assert/strict';
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
      assert.throws(() => signal.throwIfAborted(), (error) => error === reason);
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
  });
});
