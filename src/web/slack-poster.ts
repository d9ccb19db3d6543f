import { createHash, randomUUID } from 'node:crypto';
import { delay, every, type Timer } from '../clock.js';
import { requireCapability } from '../store/capabilities.js';
import type { InboxRecord, RememberedResults } from '../store/store.js';
import type { InboxWebParts } from './inbox-web-parts.js';
import { slackMessage } from './slack-blocks.js';
import type { SlackSettings } from './slack-options.js';
import { SlackCallError, type SlackWebApi } from './slack-web-api.js';

/** How long a post is remembered; an item still waiting after that is posted again, as a reminder. */
const REMEMBER_MS = 30 * 24 * 3_600_000;
/** How long a node's claim to post an item lasts: another node posts it if this one died meanwhile. */
const CLAIM_MS = 60_000;

/** Where a posted message is: what `chat.update` needs. */
export interface PostedMessage {
  readonly channel: string;
  readonly ts: string;
}

/**
 * Posts each approval that starts waiting to the Slack channel, once, whichever node parked it and
 * however many nodes run a poster. Like the webhook notifier, it reads the pending items every `pollMs`.
 * Before posting, a node claims the item in the store (`claimRemembered`, one atomic step: of nodes racing,
 * one posts); once Slack took the message, its channel and `ts` are remembered under the same key. A post
 * Slack refused is given back and tried at the next scan, after any wait Slack asked for; each failure is
 * reported as a `warning` event.
 */
export class SlackPoster {
  private readonly posted = new Set<string>();
  private readonly stop = new AbortController();
  private readonly owner = randomUUID();
  private readonly keyPrefix: string;
  private readonly remembered: RememberedResults;
  private timer: Timer | undefined;
  private scanning: Promise<void> | undefined;
  /** Until when Slack asked us to wait (HTTP 429). */
  private pausedUntil = 0;

  constructor(
    private readonly settings: SlackSettings,
    private readonly slack: SlackWebApi,
    private readonly parts: InboxWebParts,
    private readonly pageUrl: string,
    private readonly pollMs: number,
  ) {
    const channel = createHash('sha256').update(settings.channel).digest('hex').slice(0, 16);
    this.keyPrefix = `wardrik-web:slack:${channel}:`;
    this.remembered = requireCapability(parts.store, 'RememberedResults', 'Slack approvals', 'leave out slack');
  }

  start(): void {
    this.tick();
    this.timer = every(this.parts.timers, this.pollMs, () => this.tick(), { background: true });
  }

  async close(): Promise<void> {
    this.timer?.cancel();
    this.stop.abort();
    await this.scanning;
  }

  private tick(): void {
    if (this.scanning !== undefined || this.stop.signal.aborted) return;
    this.scanning = this.scan()
      .catch((error: unknown) => this.warn(`could not read the pending items: ${(error as Error).message}`))
      .finally(() => (this.scanning = undefined));
  }

  private async scan(): Promise<void> {
    for (const item of await this.parts.inbox.list()) {
      if (this.stop.signal.aborted) return;
      if (item.kind !== 'approval' && item.kind !== 'tool_change') continue;
      if (this.posted.has(item.id)) continue;
      const wait = this.pausedUntil - this.parts.clock.now();
      if (wait > 0 && !(await this.sleep(wait))) return;
      // One failure a scan: a Slack that refuses every post is not asked again for each item.
      if (!(await this.post(item))) return;
    }
  }

  /**
   * Posts the item unless it was posted (here, or as the store remembers) or another node is posting it;
   * false when Slack did not take it.
   */
  private async post(item: InboxRecord): Promise<boolean> {
    const key = this.keyPrefix + item.id;
    const now = this.parts.clock.now();
    const claim = { key, digest: item.digest, owner: this.owner, expiresAt: now + CLAIM_MS };
    const outcome = await this.remembered.claimRemembered(claim, now);
    if (!outcome.claimed) {
      if ('remembered' in outcome) this.posted.add(item.id);
      return true;
    }
    let answer: Record<string, unknown>;
    try {
      const message = slackMessage(item, this.pageUrl);
      answer = await this.slack.call(
        'chat.postMessage',
        { channel: this.settings.channel, ...message, unfurl_links: false, unfurl_media: false },
        this.stop.signal,
      );
    } catch (error) {
      await this.remembered.releaseRemembered(key, this.owner).catch(() => undefined);
      if (error instanceof SlackCallError && error.retryAfterMs !== undefined)
        this.pausedUntil = this.parts.clock.now() + error.retryAfterMs;
      if (!this.stop.signal.aborted)
        this.warn(
          `could not post inbox item "${item.id}" (${item.tool}): ${(error as Error).message}. Trying again in ${this.pollMs} ms while it waits.`,
        );
      return false;
    }
    this.posted.add(item.id);
    const channel = typeof answer.channel === 'string' ? answer.channel : this.settings.channel;
    const posted: PostedMessage = { channel, ts: typeof answer.ts === 'string' ? answer.ts : '' };
    await this.remembered
      .putRemembered({
        key,
        digest: item.digest,
        answer: { status: 'ok', output: posted, labels: [] },
        expiresAt: now + REMEMBER_MS,
      })
      .catch((error: unknown) =>
        this.warn(
          `posted inbox item "${item.id}" but could not record that in the store (${(error as Error).message}); another node may post it again.`,
        ),
      );
    return true;
  }

  private sleep(ms: number): Promise<boolean> {
    return delay(this.parts.timers, ms, this.stop.signal).then(
      () => true,
      () => false,
    );
  }

  private warn(what: string): void {
    this.parts.events.emit({ type: 'warning', message: `inboxWeb Slack (${this.settings.channel}): ${what}` });
  }
}
