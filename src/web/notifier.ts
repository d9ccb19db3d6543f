import { createHash, createHmac } from 'node:crypto';
import type { InboxRecord } from '../store/store.js';
import type { InboxWebParts } from './inbox-web-parts.js';
import type { WebhookOptions } from './options.js';
import { printableLine } from './text.js';

/** The header a receiver checks: `sha256=` and the hex HMAC-SHA256 of the raw body under the shared secret. */
export const SIGNATURE_HEADER = 'x-wardrik-signature';
/** How long a delivery is remembered; an item still waiting after that is announced again, as a reminder. */
const REMEMBER_MS = 30 * 24 * 3_600_000;
const TIMEOUT_MS = 10_000;
const MAX_IN_FLIGHT = 4;
/** How long `close()` lets deliveries under way finish (and be recorded) before it cuts them off. */
const CLOSE_GRACE_MS = 2_000;
const TEXT_ARGUMENTS = 300;

/**
 * The JSON a webhook receives for each item that starts waiting (`inbox.waiting`), and again, once, for
 * an item that waited `policy.escalateAfterMs` without an answer (`inbox.escalated`).
 */
export interface InboxWaitingMessage {
  readonly type: 'inbox.waiting' | 'inbox.escalated';
  /** One line a person reads: what waits, who asked, its labels, and the link. Slack and Teams show it as is. */
  readonly text: string;
  /** Where the item is on the page. */
  readonly url: string;
  readonly item: Pick<InboxRecord, 'id' | 'kind' | 'tool' | 'agent' | 'run' | 'call' | 'arguments' | 'digest' | 'labels' | 'reason' | 'createdAt'>;
  readonly sentAt: number;
}

/**
 * Tells a webhook about every inbox item that starts waiting, on any node that shares the store.
 *
 * It reads the pending items every `pollMs` rather than listening to this process's events, so an
 * item parked by another node, or while this notifier was down, is announced too. A delivery is
 * remembered in the store (a remembered result under the key `wardrik-web:notified:<webhook>:<item>`)
 * once the receiver answered 2xx, so a restart does not announce it again; until then it is retried
 * with exponential backoff for as long as the item waits, each failure reported as a `warning` event.
 * Delivery is at least once: a crash between the receiver's 2xx and the write announces it again.
 */
export class WebhookNotifier {
  private readonly delivered = new Set<string>();
  private readonly inFlight = new Map<string, Promise<void>>();
  /** Stops scanning and retrying. */
  private readonly stop = new AbortController();
  /** Cuts off POSTs under way: only when they outlast the grace `close()` gives them. */
  private readonly cut = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private scanning: Promise<void> | undefined;
  private readonly keyPrefix: string;

  constructor(
    private readonly webhook: WebhookOptions,
    private readonly pageUrl: string,
    private readonly parts: InboxWebParts,
    private readonly pollMs: number,
  ) {
    this.keyPrefix = `wardrik-web:notified:${createHash('sha256').update(webhook.url).digest('hex').slice(0, 16)}:`;
  }

  start(): void {
    this.tick();
    this.timer = setInterval(() => this.tick(), this.pollMs);
    this.timer.unref();
  }

  /**
   * Stops looking and retrying. A POST under way may finish for a moment, so that a message the receiver
   * took is recorded as delivered and not announced again after a restart.
   */
  async close(): Promise<void> {
    clearInterval(this.timer);
    this.stop.abort();
    await this.scanning;
    const grace = setTimeout(() => this.cut.abort(), CLOSE_GRACE_MS);
    await Promise.all(this.inFlight.values());
    clearTimeout(grace);
  }

  private tick(): void {
    if (this.scanning !== undefined || this.stop.signal.aborted) return;
    this.scanning = this.scan()
      .catch((error: unknown) => this.warn(`could not read the pending items: ${(error as Error).message}; trying again in ${this.pollMs} ms.`))
      .finally(() => (this.scanning = undefined));
  }

  private async scan(): Promise<void> {
    const items = await this.parts.inbox.list();
    for (const item of items) {
      await this.announce(item, 'inbox.waiting');
      if (item.escalatedAt !== undefined) await this.announce(item, 'inbox.escalated');
      if (this.stop.signal.aborted) return;
    }
  }

  /** Starts delivering one message about the item, unless it was delivered (here, or as the store remembers). */
  private async announce(item: InboxRecord, type: InboxWaitingMessage['type']): Promise<void> {
    // The waiting message keeps the item's id as its key, as it always had; an escalation gets its own.
    const key = type === 'inbox.waiting' ? item.id : `${item.id}:escalated`;
    if (this.stop.signal.aborted || this.delivered.has(key) || this.inFlight.has(key)) return;
    if ((await this.parts.store.getRemembered(this.keyPrefix + key, this.parts.clock.now())) !== undefined) {
      this.delivered.add(key);
      return;
    }
    // At most MAX_IN_FLIGHT at once: the next starts as soon as one ends (or gives up when the notifier stops).
    while (this.inFlight.size >= MAX_IN_FLIGHT) await Promise.race(this.inFlight.values());
    if (this.stop.signal.aborted) return;
    const delivery = this.deliver(item, type, key).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, delivery);
  }

  /** Posts the item's message until the receiver takes it, the item is answered, or the notifier stops. */
  private async deliver(item: InboxRecord, type: InboxWaitingMessage['type'], key: string): Promise<void> {
    const retry = { baseDelayMs: this.webhook.retry?.baseDelayMs ?? 1_000, maxDelayMs: this.webhook.retry?.maxDelayMs ?? 300_000 };
    for (let attempt = 1; !this.stop.signal.aborted; attempt++) {
      const failure = await this.post(item, type, key);
      if (failure === undefined) {
        this.delivered.add(key);
        const now = this.parts.clock.now();
        await this.parts.store
          .putRemembered({ key: this.keyPrefix + key, digest: item.digest, answer: { status: 'ok', output: { notifiedAt: now }, labels: [] }, expiresAt: now + REMEMBER_MS })
          .catch((error: unknown) => this.warn(`announced inbox item "${item.id}" but could not record that in the store (${(error as Error).message}); a restart may announce it again.`));
        return;
      }
      const delayMs = Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** (attempt - 1)) * (0.8 + Math.random() * 0.4);
      this.warn(`could not announce inbox item "${item.id}" (${item.tool}), attempt ${attempt}: ${failure}. Trying again in ${Math.round(delayMs / 100) / 10} s while it waits.`);
      if (!(await this.sleep(delayMs))) return;
      const now = await this.parts.inbox.get(item.id).catch(() => item);
      // Answered meanwhile: nobody needs to hear that it waits.
      if (now === undefined || now.status !== 'pending') return;
    }
  }

  /** One POST; `undefined` when the receiver answered 2xx, else what went wrong. */
  private async post(item: InboxRecord, type: InboxWaitingMessage['type'], key: string): Promise<string | undefined> {
    const body = JSON.stringify(this.message(item, type));
    const signature = createHmac('sha256', this.webhook.secret).update(body).digest('hex');
    try {
      const response = await fetch(this.webhook.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [SIGNATURE_HEADER]: `sha256=${signature}`, 'x-wardrik-delivery': key },
        body,
        redirect: 'error',
        signal: AbortSignal.any([this.cut.signal, AbortSignal.timeout(TIMEOUT_MS)]),
      });
      await response.arrayBuffer().catch(() => undefined);
      return response.ok ? undefined : `the receiver answered HTTP ${response.status}`;
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      return `the request failed (${cause?.code ?? cause?.message ?? (error as Error).message})`;
    }
  }

  private message(item: InboxRecord, type: InboxWaitingMessage['type']): InboxWaitingMessage {
    // A query, not a fragment: it survives the sign-in a person may need first.
    const url = `${this.pageUrl}?item=${encodeURIComponent(item.id)}`;
    const what = item.kind === 'approval' ? 'Approval needed' : item.kind === 'park' ? 'A tool asks a person' : 'A call in doubt after a crash';
    const args = compactJson(item.arguments);
    const labels = item.labels.length === 0 ? '' : ` · labels: ${item.labels.join(', ')}${item.labels.includes('outside') ? ' (asked for after the run read text from outside)' : ''}`;
    const waited = type === 'inbox.escalated' ? `Escalated, unanswered for ${Math.round((this.parts.clock.now() - item.createdAt) / 60_000)} min: ` : '';
    const text = `${waited}${what}: ${item.tool} ${args} · asked by agent ${item.agent} in run ${item.run}${labels} · ${item.reason} · Open: ${url}`;
    const { id, kind, tool, agent, run, call, arguments: argumentsValue, digest, labels: itemLabels, reason, createdAt } = item;
    return {
      type,
      text: slackSafe(oneLine(text)),
      url,
      item: { id, kind, tool, agent, run, call, arguments: argumentsValue, digest, labels: itemLabels, reason, createdAt },
      sentAt: this.parts.clock.now(),
    };
  }

  private sleep(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      if (this.stop.signal.aborted) return resolve(false);
      const timer = setTimeout(() => resolve(true), ms);
      this.stop.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve(false);
      }, { once: true });
    });
  }

  private warn(what: string): void {
    // The webhook's URL is often a secret itself (Slack's are): only its origin is named.
    this.parts.events.emit({ type: 'warning', message: `inboxWeb notifications (${new URL(this.webhook.url).origin}/…): ${what}` });
  }
}

/** The arguments on one line, cut at `TEXT_ARGUMENTS` characters saying so; the page shows them whole. */
function compactJson(value: unknown): string {
  const text = JSON.stringify(value) ?? 'none';
  return text.length <= TEXT_ARGUMENTS ? text : `${text.slice(0, TEXT_ARGUMENTS)}… (${text.length} characters in all; the page shows them whole)`;
}

/**
 * The text as one line in reading order, with no Markdown link: line breaks, other control characters and
 * bidirectional overrides become spaces (a model's arguments must not start a line of their own, such as a
 * second "Open: …", nor reverse what follows), and `](` gets a space, so Teams makes no `[text](url)` link.
 */
function oneLine(text: string): string {
  return printableLine(text).replace(/\]\(/g, '] (');
}

/**
 * Slack reads `<…>` as links and mentions (`<!channel>`) and `&` as an entity: a model's arguments must
 * not ping a channel, so these three are escaped as Slack documents.
 */
function slackSafe(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
