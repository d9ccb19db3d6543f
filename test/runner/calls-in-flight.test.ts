import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defineTool, type ToolAnswer } from '../../src/index.js';
import { CallsInFlight } from '../../src/runner/calls-in-flight.js';
import { counter, harness } from './helpers.js';

const answer = (): Promise<ToolAnswer> => Promise.resolve({ status: 'ok', output: 1, labels: [] });

describe('CallsInFlight', () => {
  it('finds a call on its own and forgets it once deleted', () => {
    const calls = new CallsInFlight();
    const a = answer();
    calls.set('r', 'c1', a);
    assert.equal(calls.get('r', 'c1'), a);
    assert.equal(calls.has('r', 'c2'), false);
    assert.equal(calls.has('other', 'c1'), false);
    calls.delete('r', 'c1', a);
    assert.equal(calls.has('r', 'c1'), false);
  });

  it('keeps calls beside each other apart, whatever order they end in', () => {
    const calls = new CallsInFlight();
    const ids = ['c1', 'c2', 'c3', 'c4'];
    const answers = ids.map(() => answer());
    ids.forEach((id, i) => calls.set('r', id, answers[i]!));
    ids.forEach((id, i) => assert.equal(calls.get('r', id), answers[i]));
    // The first (on its own when set) ends first; a new call then takes its place beside the others.
    calls.delete('r', 'c1', answers[0]!);
    const c5 = answer();
    calls.set('r', 'c5', c5);
    assert.equal(calls.has('r', 'c1'), false);
    assert.equal(calls.get('r', 'c5'), c5);
    for (const [id, i] of [
      ['c3', 2],
      ['c2', 1],
      ['c4', 3],
    ] as const) {
      calls.delete('r', id, answers[i]!);
      assert.equal(calls.has('r', id), false, id);
    }
    assert.equal(calls.get('r', 'c5'), c5);
    calls.delete('r', 'c5', c5);
    assert.equal(calls.has('r', 'c5'), false);
  });

  it('keeps a call set again with another answer when the first answer is deleted', () => {
    const calls = new CallsInFlight();
    const first = answer();
    const second = answer();
    calls.set('r', 'c1', first);
    calls.set('r', 'c1', second);
    calls.delete('r', 'c1', first);
    assert.equal(calls.get('r', 'c1'), second);
    // The same beside another call.
    const other = answer();
    calls.set('r', 'c2', other);
    const third = answer();
    calls.set('r', 'c2', third);
    calls.delete('r', 'c2', other);
    assert.equal(calls.get('r', 'c2'), third);
    // Set again once the call it stood beside has ended: the first answer is gone for good.
    calls.delete('r', 'c1', second);
    const fourth = answer();
    calls.set('r', 'c2', fourth);
    calls.delete('r', 'c2', fourth);
    assert.equal(calls.has('r', 'c2'), false);
  });
});

describe('ToolRunner with many calls at once', () => {
  it('runs each call id once, however many duplicates arrive while calls of other ids run', async () => {
    const ran = counter();
    const slow = defineTool({
      name: 'slow',
      description: 'Waits a little.',
      annotations: { readOnly: true },
      run: async (args: { n: number }) => {
        ran.calls.push(args.n);
        await new Promise((resolve) => setTimeout(resolve, 5));
        return args.n * 2;
      },
      input: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'], additionalProperties: false },
    });
    const h = await harness([slow]);
    const ids = Array.from({ length: 8 }, (_, i) => i);
    // Three sends of each of eight ids, interleaved, all before any of them ends.
    const sends = [0, 1, 2].flatMap(() => ids.map((n) => h.call('slow', { n }, { id: `call-${n}` })));
    const answers = await Promise.all(sends);
    assert.deepEqual(
      answers.map((a) => (a.status === 'ok' ? a.output : a.status)),
      [0, 1, 2].flatMap(() => ids.map((n) => n * 2)),
    );
    assert.deepEqual(
      [...(ran.calls as number[])].sort((a, b) => a - b),
      ids,
    );
    // Once they have ended, nothing is counted as running: a repeat gets the journaled answer without running.
    for (const n of ids) assert.equal(h.wardrik.runner.isRunning('run-1', `call-${n}`), false);
    assert.deepEqual(await h.call('slow', { n: 3 }, { id: 'call-3' }), {
      status: 'ok',
      output: 6,
      labels: ['confidential'],
    });
    assert.equal(ran.count, ids.length);
    await h.close();
  });
});
