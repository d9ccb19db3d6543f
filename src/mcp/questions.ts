import { randomUUID } from 'node:crypto';
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/client';
import { delay, type Clock, type Timers } from '../clock.js';
import type { QuestionDetail } from '../inbox/question.js';
import { OUTSIDE } from '../policy/policy.js';
import { argumentsDigest } from '../runner/digest.js';
import type { InboxRecord, Store } from '../store/store.js';
import type { EventBus } from '../telemetry/event-bus.js';
import type { CallInFlight, QuestionLink } from './call-links.js';

export interface QuestionSettings {
  readonly hub: string;
  readonly store: Store;
  readonly events: EventBus;
  readonly clock: Clock;
  readonly timers: Timers;
  /** How long a question waits for a person before it is declined. */
  readonly waitMs: number;
  /** How often the item is read again while it waits: a person may answer on another node. */
  readonly pollMs: number;
}

const MAX_MESSAGE = 4_000;
const MAX_SCHEMA_CHARS = 64_000;
const MAX_URL = 4_096;
/** Questions of one server waiting for a person at once: a server that asks more is declined at once (each waiting one polls the store). */
const MAX_WAITING = 32;

/**
 * Takes a server's `elicitation/create` to a person: an inbox item of kind `question` (the server, the
 * call it belongs to, the message, the requested schema or URL), then waits for the answer, read from
 * the store so that a person answering on any node (or the `wardrik` command) is heard. Unanswered
 * within `waitMs`, it is declined; when the server gives up first (it cancels), the item is closed.
 */
export class Questions {
  /** How many questions of each server wait for a person now. */
  private readonly waiting = new Map<string, number>();

  constructor(private readonly settings: QuestionSettings) {}

  /**
   * Asks a person the server's question and returns the answer. When `link` names the call it belongs
   * to, the call's runner is told while it waits (its time-out pauses; an agent's turn parks on the item).
   */
  async ask(
    server: string,
    trusted: boolean,
    params: ElicitRequest['params'],
    link: QuestionLink,
    signal: AbortSignal,
  ): Promise<ElicitResult> {
    const waiting = this.waiting.get(server) ?? 0;
    const detail =
      link.ended === true
        ? 'it came during a call that has ended (its time-out ran out, or it was stopped), so nobody waits for the answer'
        : waiting >= MAX_WAITING
          ? `it already has ${MAX_WAITING} questions waiting for a person`
          : this.detailOf(server, params);
    if (typeof detail === 'string') {
      this.settings.events.emit({
        type: 'warning',
        message: `MCP server "${server}" of hub "${this.settings.hub}" asked a question Wardrik declined: ${detail}.`,
      });
      return { action: 'decline' };
    }
    this.waiting.set(server, waiting + 1);
    try {
      return await this.askPerson(server, trusted, detail, link, signal);
    } finally {
      const left = (this.waiting.get(server) ?? 1) - 1;
      if (left === 0) this.waiting.delete(server);
      else this.waiting.set(server, left);
    }
  }

  private async askPerson(
    server: string,
    trusted: boolean,
    detail: QuestionDetail,
    link: QuestionLink,
    signal: AbortSignal,
  ): Promise<ElicitResult> {
    const item = this.itemOf(server, trusted, detail, link);
    await this.settings.store.putInboxItem(item);
    this.settings.events.emit({
      type: 'tool.parked',
      agent: item.agent,
      run: item.run,
      call: item.call,
      tool: item.tool,
      inboxId: item.id,
      kind: 'question',
      reason: item.reason,
    });
    const answered = link.call?.context?.waitingForPerson?.(item.id, item.reason);
    try {
      return await this.answerOf(item, signal);
    } finally {
      answered?.();
    }
  }

  /** The question as a person sees it, or why it is declined without asking. */
  private detailOf(server: string, params: ElicitRequest['params']): QuestionDetail | string {
    const message = String(params.message ?? '').slice(0, MAX_MESSAGE);
    if (params.mode === 'url') {
      const url = (params as { url?: unknown }).url;
      if (typeof url !== 'string' || url.length > MAX_URL || !/^https?:\/\//i.test(url))
        return 'its URL is not an http(s) URL of at most 4 096 characters';
      return { hub: this.settings.hub, server, mode: 'url', message, url };
    }
    const requestedSchema = (params as { requestedSchema?: unknown }).requestedSchema;
    if (
      requestedSchema === null ||
      typeof requestedSchema !== 'object' ||
      JSON.stringify(requestedSchema).length > MAX_SCHEMA_CHARS
    ) {
      return `its requested schema is not an object of at most ${MAX_SCHEMA_CHARS} characters`;
    }
    return {
      hub: this.settings.hub,
      server,
      mode: 'form',
      message,
      requestedSchema: requestedSchema as Record<string, unknown>,
    };
  }

  private itemOf(server: string, trusted: boolean, detail: QuestionDetail, link: QuestionLink): InboxRecord {
    const id = randomUUID();
    const call = link.call;
    const args = call?.arguments ?? null;
    const during =
      call !== undefined
        ? `during a call of ${call.tool}`
        : link.candidates.length === 0
          ? 'outside any call'
          : `during one of ${link.candidates.length} calls in flight (${candidates(link.candidates)}), which its transport does not say`;
    return {
      id,
      kind: 'question',
      status: 'pending',
      agent: call?.agent ?? `mcp:${this.settings.hub}`,
      run: call?.run ?? `mcp:${this.settings.hub}/${server}`,
      call: call?.call ?? id,
      tool: call?.tool ?? `${server}/(no call)`,
      arguments: args,
      digest: argumentsDigest(args),
      // The question is the server's text: outside unless the server is trusted.
      labels: trusted ? [] : [OUTSIDE],
      reason: `MCP server "${server}" asks ${during}: ${detail.message}`,
      createdAt: this.settings.clock.now(),
      detail,
    };
  }

  private async answerOf(item: InboxRecord, signal: AbortSignal): Promise<ElicitResult> {
    const { clock, timers } = this.settings;
    const deadline = clock.now() + this.settings.waitMs;
    for (;;) {
      const now = await this.settings.store.getInboxItem(item.id);
      if (now !== undefined && now.status !== 'pending') return resultOf(now.response);
      if (signal.aborted) {
        await this.close(item, { action: 'cancel' }, 'the server stopped waiting');
        return { action: 'cancel' };
      }
      const left = deadline - clock.now();
      if (left <= 0) {
        // Declined unless a person answered at the last moment: then theirs stands.
        if (await this.close(item, { action: 'decline' }, `nobody answered within ${this.settings.waitMs} ms`))
          return { action: 'decline' };
        continue;
      }
      // Stopped early by the signal: the loop sees it and closes the item.
      await delay(timers, Math.min(left, this.settings.pollMs), signal).catch(() => undefined);
    }
  }

  private close(item: InboxRecord, response: ElicitResult, why: string): Promise<boolean> {
    const closed: InboxRecord = {
      ...item,
      status: 'answered',
      response,
      by: `wardrik (${why})`,
      answeredAt: this.settings.clock.now(),
    };
    return this.settings.store.updateInboxItem(closed, 'pending');
  }
}

/** What the server is sent for an answered item's `response` (read back from the store, so parsed). */
function resultOf(response: unknown): ElicitResult {
  const { action, content } = (response ?? {}) as { action?: unknown; content?: unknown };
  if (action === 'accept') {
    return content !== null && typeof content === 'object' && !Array.isArray(content)
      ? { action, content: content as ElicitResult['content'] }
      : { action };
  }
  return { action: action === 'cancel' ? 'cancel' : 'decline' };
}

/** The calls a question may belong to, as a person reads them (the first few). */
function candidates(calls: readonly CallInFlight[]): string {
  const named = calls.slice(0, 5).map((call) => `${call.tool} of agent "${call.agent}", run ${call.run}`);
  return calls.length > 5 ? `${named.join('; ')}; …` : named.join('; ');
}
