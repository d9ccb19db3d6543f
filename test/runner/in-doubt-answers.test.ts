import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defineTool } from '../../src/index.js';
import { counter, errorCode, errorMessage, harness } from './helpers.js';

describe('What a timed-out call answers', () => {
  it('tells the model a call that is not safe to repeat may have happened, a person will settle it, and not to call it again', async () => {
    const ran = counter();
    const h = await harness(
      [
        defineTool({
          name: 'pay',
          description: 'Pays.',
          annotations: { gated: false },
          run: () => (ran.calls.push(1), new Promise(() => {})),
        }),
      ],
      { runner: { timeoutMs: 20 } },
    );
    try {
      const answer = await h.call('pay');
      assert.equal(errorCode(answer), 'timeout');
      assert.match(
        errorMessage(answer),
        /timed out after 20 ms and was stopped, so it may have happened\. Do not call it again: a repeat could do it twice\./,
      );
      assert.match(errorMessage(answer), /a person will check and settle it/);
      assert.doesNotMatch(errorMessage(answer), /Try again/);
      assert.equal(ran.count, 1);
    } finally {
      await h.close();
    }
  });

  it('tells the model to try again later when the call is read-only', async () => {
    const h = await harness(
      [
        defineTool({
          name: 'look',
          description: 'Looks.',
          annotations: { readOnly: true },
          run: () => new Promise(() => {}),
        }),
      ],
      {
        runner: { timeoutMs: 20, retry: { attempts: 1 } },
      },
    );
    try {
      assert.match(errorMessage(await h.call('look')), /timed out after 20 ms and was stopped\. Try again later/);
    } finally {
      await h.close();
    }
  });
});
