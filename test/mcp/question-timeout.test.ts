import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TurnResult } from '../../src/index.js';
import { scriptedModel } from '../../src/testing/index.js';
import { startAskingHttp } from './fixtures/asking-http.js';
import type { AskingOptions } from './fixtures/asking-tools.js';
import { harness } from './helpers.js';

/**
 * An MCP server's question that leaves its call little time: the call's time-out pauses while a person is
 * asked and the time left runs again once they answered, so a server still working then may run out of
 * it. Whatever the timing, each turn that parked on the question ends (with the server's result or a
 * time-out the model can act on), and the call is not run again: a retry would ask the person a second
 * question, one the parked turn does not wait on (it hung there until `elicitationWaitMs`, 10 minutes).
 */

/** Long enough for the question to arrive within it on a loaded machine (see question-turns.test.ts). */
const CALL_TIMEOUT_MS = 2_000;
/** A hang fails the test rather than holding the suite. */
const TEST_TIMEOUT = { timeout: 60_000 };
const AGENTS = ['one', 'two', 'three'];

/** A model that calls `tool` once, then answers with the tool's result. */
const callsThenReports = (tool: string) =>
  scriptedModel([{ toolCalls: [{ name: tool }] }, (call) => ({ text: `got ${call.lastToolResult ?? 'nothing'}` })]);

/** The server's calls of each tool, counted as they start. */
function counted(shape: AskingOptions = {}) {
  const calls = new Map<string, number>();
  return {
    calls,
    shape: { ...shape, onCall: (tool: string) => calls.set(tool, (calls.get(tool) ?? 0) + 1) },
  };
}

/** Holds the call's result until the client cancels the call: the server is still at work when its time runs out. */
const untilCancelled = (_tool: string, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });

/**
 * Three agents each call `tool` at once over Streamable HTTP; every turn that parks on its question is
 * answered, all at once. Returns each turn's end and the inbox's items.
 */
async function threeTurns(tool: string, timeoutMs: number, shape: AskingOptions) {
  const server = await startAskingHttp(shape);
  // `book` changes things: allowed here, so that its turn parks on the question rather than an approval.
  const h = await harness(
    { servers: { q: { transport: { http: { url: server.url } }, timeoutMs } } },
    { policy: { rules: [{ match: 'q/*', action: 'allow' }] } },
  );
  try {
    await h.toolsChanged('q', 5);
    const agents = AGENTS.map((id) =>
      h.wardrik.startAgent({ id, model: callsThenReports(`q__${tool}`), tools: ['q/*'] }),
    );
    const sent = await Promise.all(agents.map((agent, i) => agent.send(`Ask, turn ${i}`)));
    const ended = sent.map((turn, i) =>
      turn.status === 'parked' ? agents[i]!.result(turn.run) : Promise.resolve(turn),
    );
    await Promise.all(
      sent
        .filter((turn) => turn.status === 'parked')
        .map((turn) =>
          h.wardrik.inbox.answer(turn.parked[0]!.inboxId, { action: 'accept', content: { name: `for-${turn.agent}` } }),
        ),
    );
    const done: TurnResult[] = await Promise.all(ended);
    return { sent, done, pending: await h.wardrik.inbox.list(), events: h.events };
  } finally {
    await h.close();
    await server.close();
  }
}

describe("A server's question answered with little of its call's time-out left", () => {
  it(
    'ends each of three concurrent turns with a time-out the model can act on, and runs the read-only call no more than once',
    TEST_TIMEOUT,
    async () => {
      // The race made certain: the server is still at work after the answer until the hub cancels the call.
      const { calls, shape } = counted({ afterAnswer: untilCancelled });
      const { sent, done, pending, events } = await threeTurns('ask', CALL_TIMEOUT_MS, shape);
      assert.deepEqual(
        sent.map((turn) => turn.status),
        ['parked', 'parked', 'parked'],
      );
      for (const turn of done) {
        assert.equal(turn.status, 'done', JSON.stringify(turn));
        assert.match(
          turn.text,
          /timed out after 2000 ms \(not counting the wait for a person to answer its server's question\)/,
        );
        assert.match(turn.text, /It was not tried again, as that would ask the question again: call it again/);
      }
      assert.equal(calls.get('ask'), 3, 'each call ran once: a retry would have asked its person again');
      assert.equal(events.filter((e) => e.type === 'tool.retrying').length, 0);
      assert.equal(events.filter((e) => e.type === 'tool.parked').length, 3, 'one question a call');
      assert.deepEqual(pending, [], 'no question left waiting');
    },
  );

  it(
    'ends each turn of a call not safe to repeat with "may have happened", having run it once',
    TEST_TIMEOUT,
    async () => {
      const { calls, shape } = counted({ afterAnswer: untilCancelled });
      const { done } = await threeTurns('book', CALL_TIMEOUT_MS, shape);
      for (const turn of done) {
        assert.equal(turn.status, 'done', JSON.stringify(turn));
        assert.match(
          turn.text,
          /timed out after 2000 ms \(not counting the wait .*\) and was stopped, so it may have happened/,
        );
      }
      assert.equal(calls.get('book'), 3);
    },
  );

  it('gives each turn the answer when the server is done before the time left runs out', TEST_TIMEOUT, async () => {
    const { calls, shape } = counted();
    const { done } = await threeTurns('ask', CALL_TIMEOUT_MS, shape);
    assert.deepEqual(
      done.map((turn) => /"name":"([^"]+)"/.exec(turn.text)?.[1]),
      ['for-one', 'for-two', 'for-three'],
    );
    assert.equal(calls.get('ask'), 3);
  });
});
