import { createHash } from 'node:crypto';
import { delay, every, type Timer } from '../clock.js';
import type { InboxRecord, RememberedResults } from '../store/store.js';
import { requireCapability } from '../store/capabilities.js';
import type { InboxWebParts } from './inbox-web-parts.js';
import type { WebhookSettings } from './options.js';
import { webhookMessage, type InboxWaitingMessage } from './webhook-message.js';
import { webhookKey, webhookSignature } from './webhook-signature.js';

/** How long a delivery is remembered; an item still waiting after that is announced again, as a reminder. */
const REMEMBER_MS = 30 * 24 * 3_600_000;
const TIMEOUT_MS = 10_000;
/** First tries of messages at once. */
const FIRST_TRIES = 4;
/** Retries at once, in slots of their own: a receiver that hangs on them takes no first try's slot. */
const RETRIES = 2;
/** How long `close()` lets deliveries under way finish (and be recorded) before it cuts them off. */
const CLOSE_GRACE_MS = 2_000;

/** How one POST went: taken (2xx), refused for good (a 4xx but 408 and 429), or failed for now. */
type Outcome =
  | { readonly kind: 'delivered' }
  | { readonly kind: 'refused'; readonly status: number }
  | { readonly kind: 'failed'; readonly what: string; readonly retryAfterMs?: number };

/**
 * Tells a webhook about every inbox item that starts waiting, on any node that shares the store.
 *
 * It reads the pending items every `pollMs` rather than listening to this process's events, so an
 * item parked by another node, or while this notifier was down, is announced too. A delivery is
 * remembered in the store (a remembered result under the key `wardrik-web:notified:<webhook>:<item>`)
 * once the receiver answered 2xx, so a restart does not announce it again; until then it is retried
 * with exponential backoff for as long as the item waits, each failure reported as a `warning` event.
 * A 4xx other than 408 and 429 is not retried: it is reported as a `notify.failed` event, and this
 * notifier does not send that message again. Delivery is at least once: a crash between the receiver's
 * 2xx and the write announces it again.
 *
 * First tries and retries have slots of their own, and a message holds one only while its POST is under
 * way, never through a backoff: one item's failures never keep another item from its first try.
 */
export class WebhookNotifier {
  /** Messages delivered or refused for good: not sent again by this notifier. */
  private readonly settled = new Set<string>();
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly firstTries = new Slots(FIRST_TRIES);
  private readonly retries = new Slots(RETRIES);
  /** Stops scanning and retrying. */
  private readonly stop = new AbortController();
  /** Cuts off POSTs under way: only when they outlast the grace `close()` gives them. */
  private readonly cut = new AbortController();
  private timer: Timer | undefined;
  private scanning: Promise<void> | undefined;
  private readonly keyPrefix: string;
  private readonly key: Buffer;

  /** Where deliveries are remembered. */
  private readonly remembered: RememberedResults;

  constructor(
    private readonly webhook: WebhookSettings,
    private readonly pageUrl: string,
    private readonly parts: InboxWebParts,
    private readonly pollMs: number,
  ) {
    this.keyPrefix = `wardrik-web:notified:${createHash('sha256').update(webhook.url).digest('hex').slice(0, 16)}:`;
    this.key = webhookKey(webhook.secret, 'notify.webhook.secret');
    this.remembered = requireCapability(
      parts.store,
      'RememberedResults',
      'inbox webhook notifications',
      'leave out webhook',
    );
  }

  start(): void {
    this.tick();
    this.timer = every(this.parts.timers, this.pollMs, () => this.tick(), { background: true });
  }

  /**
   * Stops looking and retrying. A POST under way may finish for a moment, so that a message the receiver
   * took is recorded as delivered and not announced again after a restart.
   */
  async close(): Promise<void> {
    this.timer?.cancel();
    this.stop.abort();
    // Started first: a scan may be waiting for a slot that a POST under way holds.
    const grace = this.parts.timers.after(CLOSE_GRACE_MS, () => this.cut.abort());
    await this.scanning;
    await Promise.all(this.inFlight.values());
    grace.cancel();
  }

  private tick(): void {
    if (this.scanning !== undefined || this.stop.signal.aborted) return;
    this.scanning = this.scan()
      .catch((error: unknown) =>
        this.warn(`could not read the pending items: ${(error as Error).message}; trying again in ${this.pollMs} ms.`),
      )
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

  /** Starts delivering one message about the item, unless it was delivered or refused (here, or as the store remembers). */
  private async announce(item: InboxRecord, type: InboxWaitingMessage['type']): Promise<void> {
    // The waiting message keeps the item's id as its key, as it always had; an escalation gets its own.
    const key = type === 'inbox.waiting' ? item.id : `${item.id}:escalated`;
    if (this.stop.signal.aborted || this.settled.has(key) || this.inFlight.has(key)) return;
    if ((await this.remembered.getRemembered(this.keyPrefix + key, this.parts.clock.now())) !== undefined) {
      this.settled.add(key);
      return;
    }
    // The scan waits only for other first tries (each at most TIMEOUT_MS), never for a retry.
    const release = await this.firstTries.take();
    if (this.stop.signal.aborted) return release();
    const delivery = this.deliver(item, type, key, release).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, delivery);
  }

  /**
   * Posts the item's message until the receiver takes it or refuses it for good, the item is answered, or
   * the notifier stops. The first try holds the slot `release` gives back; each retry takes one of the
   * retries' slots, and none is held through a backoff.
   */
  private async deliver(
    item: InboxRecord,
    type: InboxWaitingMessage['type'],
    key: string,
    release: () => void,
  ): Promise<void> {
    const retry = this.webhook.retry;
    let outcome = await this.post(item, type, key).finally(release);
    for (let attempt = 1; outcome.kind === 'failed'; attempt++) {
      const backoffMs = retry.baseDelayMs * 2 ** (attempt - 1) * (0.8 + Math.random() * 0.4);
      // A receiver's Retry-After is heeded up to maxDelayMs, so it cannot put a message off for long.
      const delayMs = Math.min(retry.maxDelayMs, Math.max(backoffMs, outcome.retryAfterMs ?? 0));
      this.warn(
        `could not announce inbox item "${item.id}" (${item.tool}), attempt ${attempt}: ${outcome.what}. Trying again in ${Math.round(delayMs / 100) / 10} s while it waits.`,
      );
      if (!(await this.sleep(delayMs))) return;
      const now = await this.parts.inbox.get(item.id).catch(() => item);
      // Answered meanwhile: nobody needs to hear that it waits.
      if (now === undefined || now.status !== 'pending') return;
      const releaseRetry = await this.retries.take();
      if (this.stop.signal.aborted) return releaseRetry();
      outcome = await this.post(item, type, key).finally(releaseRetry);
    }
    this.settled.add(key);
    if (outcome.kind === 'refused') return this.reportRefused(item, type, outcome.status);
    const now = this.parts.clock.now();
    await this.remembered
      .putRemembered({
        key: this.keyPrefix + key,
        digest: item.digest,
        answer: { status: 'ok', output: { notifiedAt: now }, labels: [] },
        expiresAt: now + REMEMBER_MS,
      })
      .catch((error: unknown) =>
        this.warn(
          `announced inbox item "${item.id}" but could not record that in the store (${(error as Error).message}); a restart may announce it again.`,
        ),
      );
  }

  /** One POST of the message, signed as Standard Webhooks says, with this attempt's time. */
  private async post(item: InboxRecord, type: InboxWaitingMessage['type'], id: string): Promise<Outcome> {
    const now = this.parts.clock.now();
    const body = JSON.stringify(webhookMessage(item, type, this.pageUrl, now));
    const timestamp = Math.floor(now / 1_000);
    // As AbortSignal.timeout would, but on the injected timers.
    const late = new AbortController();
    const timeout = this.parts.timers.after(TIMEOUT_MS, () =>
      late.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')),
    );
    try {
      const response = await fetch(this.webhook.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'webhook-id': id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': webhookSignature(this.key, id, timestamp, body),
        },
        body,
        redirect: 'error',
        signal: AbortSignal.any([this.cut.signal, late.signal]),
      });
      await response.arrayBuffer().catch(() => undefined);
      if (response.ok) return { kind: 'delivered' };
      // 408 and 429 say "later"; any other 4xx says the same message would be refused again.
      const status = response.status;
      if (status >= 400 && status < 500 && status !== 408 && status !== 429) return { kind: 'refused', status };
      const retryAfterMs = waitAsked(response.headers.get('retry-after'), now);
      return {
        kind: 'failed',
        what: `the receiver answered HTTP ${status}`,
        ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      };
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      return {
        kind: 'failed',
        what: `the request failed (${cause?.code ?? cause?.message ?? (error as Error).message})`,
      };
    } finally {
      timeout.cancel();
    }
  }

  /** A message the receiver refused for good, as a `notify.failed` event; the item still waits on the page. */
  private reportRefused(item: InboxRecord, type: InboxWaitingMessage['type'], status: number): void {
    const reason =
      `${this.origin()}: the receiver refused the message about inbox item "${item.id}" (${item.tool}) with HTTP ${status}, which a retry would not change, ` +
      `so it is not sent again. The item still waits on the page: ${this.pageUrl}?item=${encodeURIComponent(item.id)}. ` +
      'Fix the receiver (its body limit, its secret, its address): a restarted notifier sends the message once more.';
    this.parts.events.emit({
      type: 'notify.failed',
      agent: item.agent,
      run: item.run,
      call: item.call,
      tool: item.tool,
      inboxId: item.id,
      notification: type,
      status,
      reason,
    });
  }

  /** Waits `ms`: true, or false when the notifier stopped first. */
  private sleep(ms: number): Promise<boolean> {
    return delay(this.parts.timers, ms, this.stop.signal).then(
      () => true,
      () => false,
    );
  }

  private warn(what: string): void {
    this.parts.events.emit({ type: 'warning', message: `${this.origin()}: ${what}` });
  }

  /** Who is speaking, for warnings: the webhook's URL is often a secret itself (Slack's are), so only its origin is named. */
  private origin(): string {
    return `inboxWeb notifications (${new URL(this.webhook.url).origin}/…)`;
  }
}

/** A `Retry-After` header's wait in milliseconds: whole seconds, or an HTTP date after `now`. */
function waitAsked(header: string | null, now: number): number | undefined {
  if (header === null) return undefined;
  if (/^\d{1,9}$/.test(header.trim())) return Number(header.trim()) * 1_000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** At most `size` holders at once; `take()` resolves to the release when one is free, first come first served. */
class Slots {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(size: number) {
    this.free = size;
  }

  async take(): Promise<() => void> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      // Handed straight to the next in line, so nobody who comes later jumps ahead of it.
      const next = this.waiting.shift();
      if (next === undefined) this.free++;
      else next();
    };
  }
}
