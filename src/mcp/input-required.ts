import type { CallToolResult } from '@modelcontextprotocol/client';
import { delay, type Timers } from '../clock.js';
import { backoffDelay } from '../runner/transient.js';
import { UnansweredInput } from './adapt.js';
import type { QuestionLink } from './call-links.js';
import type { ConnectionSettings } from './connection-settings.js';

/** A 2026-07-28 server's answer that it needs input before the call can go on (multi-round-trip requests). */
export interface InputRequired {
  readonly resultType: 'input_required';
  /** The requests it needs answered, by a key of its choosing: `{ method, params }` each. */
  readonly inputRequests?: Record<string, unknown>;
  /** Opaque, sent back byte for byte with the answers. */
  readonly requestState?: string;
}

/** The params of a `tools/call`, with the answers and state of a retry. */
export interface CallParams {
  readonly name: string;
  readonly arguments?: Record<string, unknown>;
  readonly inputResponses?: Record<string, unknown>;
  readonly requestState?: string;
  readonly [key: string]: unknown;
}

/** Rounds of questions one call may take before Wardrik stops asking: a server asking forever cannot hold a call. */
export const MAX_INPUT_ROUNDS = 10;

/**
 * How often a call is sent again while its server waits on something of its own (an `input_required` that
 * asks nothing, such as a Wardrik server's call waiting for a person there): from 100 ms, doubling, to 1 s.
 * The call's time-out bounds the wait.
 */
export const WAITING_POLL = { baseDelayMs: 100, maxDelayMs: 1_000 } as const;

export function isInputRequired(result: CallToolResult | InputRequired): result is InputRequired {
  return (result as { resultType?: unknown }).resultType === 'input_required';
}

export interface InputRound {
  /** The call's first params; each retry adds the round's answers and the server's state to these. */
  readonly params: CallParams;
  /** Sends the call again (a new request; the SDK's request id is fresh each time). */
  readonly send: (params: CallParams) => Promise<CallToolResult | InputRequired>;
  /** How the server's questions are answered: declined, asked of a person, or not offered at all. */
  readonly ask: ConnectionSettings['elicitation'];
  /** The call the questions belong to. */
  readonly link: QuestionLink;
  /** The call's own signal: stopping the call closes the question, and ends a wait. */
  readonly signal: AbortSignal;
  /** Where the waits between sends are timed while the server waits on something of its own. */
  readonly timers: Timers;
}

/**
 * Answers a 2026-07-28 server's `input_required` result the way a 2025 server's `elicitation/create` is
 * answered: each elicitation is declined, or parked as a `question` in the inbox until a person answers
 * it (see `Questions`). Then the call is sent again, as a new request, with the answers
 * (`inputResponses`) and the server's `requestState` echoed unchanged. Nothing is held open at the server
 * while a person thinks: the server finished the request that asked. Requests other than elicitation
 * (sampling, roots) are not offered by Wardrik, so a server asking for them gets no retry.
 *
 * An `input_required` that asks nothing but carries a `requestState` says the server waits on something
 * of its own (a Wardrik server's call waiting for a person in its inbox): the call is sent again with the
 * state after a pause (`WAITING_POLL`), for as long as the call's time-out allows. Those rounds are not
 * questions, so they do not count towards `MAX_INPUT_ROUNDS`.
 */
export async function answerInputRequired(first: InputRequired, round: InputRound): Promise<CallToolResult> {
  let asked = first;
  let waits = 0;
  for (let rounds = 1; rounds <= MAX_INPUT_ROUNDS; rounds++) {
    const entries = Object.entries(asked.inputRequests ?? {});
    if (entries.length === 0 && asked.requestState !== undefined) {
      // Guard (server-waits-not-asks): a server waiting on its own (a person there) is asked again, not given up on after MAX_INPUT_ROUNDS.
      rounds--;
      await delay(
        round.timers,
        backoffDelay(++waits, WAITING_POLL.baseDelayMs, WAITING_POLL.maxDelayMs, Math.random),
        round.signal,
      );
    }
    const answers = await Promise.all(entries.map(([key, request]) => answerOne(key, request, round)));
    const params: CallParams = {
      ...round.params,
      ...(answers.length === 0 ? {} : { inputResponses: Object.fromEntries(answers) }),
      ...(asked.requestState === undefined ? {} : { requestState: asked.requestState }),
    };
    const next = await round.send(params);
    if (!isInputRequired(next)) return next;
    asked = next;
  }
  throw new UnansweredInput(
    `still asked for input after ${MAX_INPUT_ROUNDS} rounds of answers, so Wardrik stopped the call; the server needs fixing.`,
  );
}

async function answerOne(key: string, request: unknown, round: InputRound): Promise<[string, unknown]> {
  const { method, params } = (request ?? {}) as { method?: unknown; params?: unknown };
  if (method !== 'elicitation/create') {
    throw new UnansweredInput(
      `asked for "${String(method)}" input, which Wardrik does not give (it answers elicitation only); the call did not go on.`,
    );
  }
  if (round.ask === undefined) {
    throw new UnansweredInput(
      'asked a question (elicitation), which this server is not offered (its option `elicitation` is false); the call did not go on.',
    );
  }
  if (round.ask === 'decline') return [key, { action: 'decline' }];
  const asked = (params ?? {}) as Parameters<Exclude<InputRound['ask'], 'decline' | undefined>>[0];
  return [key, await round.ask(asked, round.signal, round.link)];
}
