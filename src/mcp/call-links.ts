import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/client';
import type { CallContext } from '../runner/call-context.js';

/** A call of a server's tool under way, which a question the server asks meanwhile belongs to. */
export interface CallInFlight {
  readonly agent: string;
  readonly run: string;
  readonly call: string;
  /** `server/tool` */
  readonly tool: string;
  readonly arguments: unknown;
  /** The runner's context of the call's attempt: told while the question waits, so the call's time-out pauses and its turn may park. */
  readonly context?: CallContext | undefined;
}

/** The call a server's question belongs to, or, when the transport cannot tell, the calls it may belong to. */
export interface QuestionLink {
  readonly call: CallInFlight | undefined;
  /** The calls in flight when `call` is unknown (more than one, or none): a person is shown them all. */
  readonly candidates: readonly CallInFlight[];
  /** The transport ties the question to a call that has ended (it timed out or was stopped): nobody waits for its answer. */
  readonly ended?: true;
}

/** Questions related over HTTP whose handler has not run yet: a server that never lets one run cannot grow this. */
const MAX_RELATED = 256;
const ELICIT = Buffer.from('"elicitation/create"');
const RESULT = Buffer.from('"result"');
const ERROR = Buffer.from('"error"');
const EVENT_ID = Buffer.from('\nid:');

/** What sees an SSE response stream of a POST holding one `tools/call`, as it passes and when it ends. */
export interface ResponseStreamWatch {
  /** Whole events of the stream, before the SDK reads them. */
  events(events: Buffer): void;
  /** The stream ended, closed or failed; called once. */
  ended(): void;
}

/**
 * Which call of a server's tool a request the server sends during it (a question) belongs to, as far as
 * the transport tells:
 *
 * - Streamable HTTP: a server that relates its request to the call (the SDK's `extra.sendRequest`)
 *   sends it on the SSE stream answering the call's POST. `related` reads that stream's events as they
 *   pass (only events holding `"elicitation/create"` are parsed) and notes the question's id against the
 *   call's request id, before the SDK hands the question on.
 * - stdio, and HTTP questions sent on the session's own stream: nothing says which call it is. With one
 *   call in flight it is that call; with several the question is linked to none of them, rather than to
 *   a guess: it is shown with all of them, no call's time-out pauses and no turn parks on it.
 *
 * A call's request id is learnt as it is sent: `sending` names the call around the SDK's request, which
 * hands its `tools/call` to the transport synchronously, and `sent` (the transport's send) notes its id.
 *
 * It also tells when the answer to a call was lost (Streamable HTTP): the SSE stream answering its POST
 * ended without the answer, and the SDK will not resume it, because the connection speaks 2026-07-28
 * (where a broken stream loses the request, SEP-2575) or because the server gave the stream no event ids
 * to resume from. The call's `onLost` is told; it is never sent again here.
 */
export class CallLinks {
  /** Calls in flight by the id of their `tools/call` request, oldest first. */
  private readonly calls = new Map<RequestId, CallInFlight>();
  /** Server request id → the id of the call whose response stream carried it. */
  private readonly related = new Map<RequestId, RequestId>();
  /** What to tell when the answer to a call in flight is lost, by its request id. */
  private readonly losers = new Map<RequestId, () => void>();
  private next: { readonly call: CallInFlight | undefined; readonly onLost: (() => void) | undefined } | undefined;
  private sentId: RequestId | undefined;
  /** The connection speaks 2026-07-28: a response stream is never resumed. */
  modern = false;

  /**
   * Runs `send` (one SDK request for `tools/call`) as `call`'s, with `onLost` told if its answer is lost,
   * and forgets both once the returned promise settles.
   */
  sending<T>(call: CallInFlight | undefined, send: () => Promise<T>, onLost?: () => void): Promise<T> {
    if (call === undefined && onLost === undefined) return send();
    this.next = { call, onLost };
    this.sentId = undefined;
    let sent: Promise<T>;
    try {
      sent = send();
    } finally {
      this.next = undefined;
    }
    const id = this.sentId;
    if (id === undefined) return sent;
    const forget = (): void => {
      this.calls.delete(id);
      this.losers.delete(id);
    };
    sent.then(forget, forget);
    return sent;
  }

  /** The transport sends `message`: a `tools/call` sent for a named call is noted under its id. */
  sent(message: JSONRPCMessage): void {
    if (this.next === undefined || !('method' in message) || message.method !== 'tools/call' || !('id' in message))
      return;
    const { call, onLost } = this.next;
    if (call !== undefined) this.calls.set(message.id, call);
    if (onLost !== undefined) this.losers.set(message.id, onLost);
    this.sentId = message.id;
    this.next = undefined;
  }

  /** A watch on the SSE stream answering the POST of `requestBody`, when that holds one `tools/call`. */
  watch(requestBody: string): ResponseStreamWatch | undefined {
    const id = callRequestId(requestBody);
    if (id === undefined) return undefined;
    let answered = false;
    let resumable = false;
    let over = false;
    return {
      events: (events) => {
        if (!resumable && (events.indexOf(EVENT_ID) !== -1 || events.subarray(0, 3).toString('latin1') === 'id:'))
          resumable = true;
        if (events.indexOf(ELICIT) !== -1) this.relateTo(id, events);
        if (!answered && (events.indexOf(RESULT) !== -1 || events.indexOf(ERROR) !== -1))
          answered = answers(events, id);
      },
      ended: () => {
        if (over) return;
        over = true;
        if (answered || (resumable && !this.modern)) return;
        this.losers.get(id)?.();
      },
    };
  }

  /** Notes the questions among SSE `events` (whole ones) answering the POST of the call `call`. */
  private relateTo(call: RequestId, events: Buffer): void {
    for (const data of eventData(events.toString('utf8'))) {
      let message: unknown;
      try {
        message = JSON.parse(data);
      } catch {
        continue; // the SDK refuses it too
      }
      const { method, id } = (message ?? {}) as { method?: unknown; id?: unknown };
      if (method !== 'elicitation/create' || (typeof id !== 'string' && typeof id !== 'number')) continue;
      if (this.related.size >= MAX_RELATED) this.related.delete(this.related.keys().next().value!);
      this.related.set(id, call);
    }
  }

  /** The call the server's request `id` belongs to (see the class). */
  linkOf(id: RequestId): QuestionLink {
    const related = this.related.get(id);
    if (related !== undefined) {
      this.related.delete(id);
      const call = this.calls.get(related);
      // Guard (ended-call-question-unlinked): a question on an ended call's stream is never taken for another call's.
      return call !== undefined ? { call, candidates: [] } : { call: undefined, candidates: [], ended: true };
    }
    if (this.calls.size === 1) return { call: this.calls.values().next().value, candidates: [] };
    return { call: undefined, candidates: [...this.calls.values()] };
  }
}

/** Whether SSE `events` hold the response (a result or an error) to the request `id`. */
function answers(events: Buffer, id: RequestId): boolean {
  for (const data of eventData(events.toString('utf8'))) {
    try {
      const message = JSON.parse(data) as { id?: unknown; result?: unknown; error?: unknown } | null;
      if (message?.id === id && (message.result !== undefined || message.error !== undefined)) return true;
    } catch {
      // not JSON: the SDK refuses it too
    }
  }
  return false;
}

/** The id of the one `tools/call` request in a POST body, if it holds one. */
function callRequestId(body: string): RequestId | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  const calls = (Array.isArray(parsed) ? parsed : [parsed]).filter(
    (m): m is { id: RequestId } =>
      m !== null &&
      typeof m === 'object' &&
      (m as { method?: unknown }).method === 'tools/call' &&
      ['string', 'number'].includes(typeof (m as { id?: unknown }).id),
  );
  return calls.length === 1 ? calls[0]!.id : undefined;
}

/** The `data` of each event in SSE text (its `data:` lines joined by newlines). */
function eventData(text: string): string[] {
  const out: string[] = [];
  let data: string[] = [];
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (line === '') {
      if (data.length > 0) out.push(data.join('\n'));
      data = [];
    } else if (line.startsWith('data:')) {
      data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
    }
  }
  if (data.length > 0) out.push(data.join('\n'));
  return out;
}
