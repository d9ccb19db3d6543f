import { createHash, randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { BodyBudget } from '../http/body-budget.js';
import { requireCapability } from '../store/capabilities.js';
import type { RememberedResults } from '../store/store.js';
import type { InboxApi, WebPerson } from './api.js';
import { readText, send, WebError } from './http.js';
import type { InboxWebParts } from './inbox-web-parts.js';
import { APPROVE_ACTION, DENY_ACTION, slackMessage } from './slack-blocks.js';
import type { SlackSettings } from './slack-options.js';
import { parsePress, type Press } from './slack-press.js';
import { SlackPoster } from './slack-poster.js';
import { SLACK_TOLERANCE_MS, verifySlackRequest } from './slack-signature.js';
import { SlackWebApi } from './slack-web-api.js';

/** The largest interaction body read: Slack sends the whole message back with a press, and ours are small. */
export const MAX_INTERACTION_BYTES = 128 * 1024;
/** Presses being answered at once; past this, Slack is told to try later (503) rather than memory filling. */
const MAX_PRESSES = 100;

/**
 * Answering approvals from Slack: the poster puts each waiting item in the channel, and `handle` takes
 * the button presses Slack sends to `slack/interactions`. A press is trusted only with Slack's signature
 * over its raw body, a timestamp within 5 minutes, and a signature not seen before (remembered in the
 * store, so a replay is refused on every node). Slack wants an answer within 3 seconds, so the press is
 * acknowledged first and answered after: through the same `InboxApi` as the page and `wardrik approve`,
 * so the same rules hold (who may answer, no self-approval, quorum, the digest). The message is then
 * updated to show the outcome; a refusal is told to the person alone (`chat.postEphemeral`).
 */
export class SlackApp {
  private readonly slack: SlackWebApi;
  private readonly remembered: RememberedResults;
  private readonly presses = new Set<Promise<void>>();
  private poster: SlackPoster | undefined;
  private pageUrl: string | undefined;

  constructor(
    private readonly settings: SlackSettings,
    private readonly api: InboxApi,
    private readonly parts: InboxWebParts,
    private readonly budget: BodyBudget,
  ) {
    this.slack = new SlackWebApi(settings, parts.timers);
    this.remembered = requireCapability(parts.store, 'RememberedResults', 'Slack approvals', 'leave out slack');
  }

  /** Starts posting items, linking to them under `pageUrl`; presses are answered from then on. */
  start(pageUrl: string, pollMs: number): void {
    this.pageUrl = pageUrl;
    this.poster = new SlackPoster(this.settings, this.slack, this.parts, pageUrl, pollMs);
    this.poster.start();
  }

  /** Stops posting, and waits for presses being answered. */
  async close(): Promise<void> {
    await this.poster?.close();
    await Promise.all(this.presses);
  }

  /** `POST slack/interactions`: checks the press, acknowledges it, and answers it after. */
  async handle(request: IncomingMessage, response: ServerResponse, method: string): Promise<void> {
    if (method !== 'POST')
      throw new WebError(405, 'method_not_allowed', `${method} is not allowed here; Slack POSTs interactions.`);
    if (!/^application\/x-www-form-urlencoded\b/i.test(String(request.headers['content-type'] ?? '')))
      throw new WebError(415, 'usage', 'Slack sends interactions as application/x-www-form-urlencoded.');
    if (this.pageUrl === undefined)
      throw new WebError(
        503,
        'not_started',
        'Slack approvals start when the inbox knows its address (publicUrl, or listen()).',
        true,
      );
    const body = await this.rawBody(request);
    const now = this.parts.clock.now();
    const checked = verifySlackRequest(this.settings.signingSecret, request, body, now);
    if (!checked.ok) throw new WebError(401, 'unauthenticated', `Not a request from Slack: ${checked.reason}.`);
    // Remembered until the timestamp check would refuse it anyway; one atomic claim, so on any node sharing the store.
    const seen = await this.remembered.claimRemembered(
      {
        key: `wardrik-web:slack-seen:${createHash('sha256').update(checked.signature).digest('hex')}`,
        digest: '',
        owner: randomUUID(),
        expiresAt: checked.sentAt + SLACK_TOLERANCE_MS + 1_000,
      },
      now,
    );
    if (!seen.claimed)
      throw new WebError(401, 'unauthenticated', 'This Slack request was taken before (the same signature): a replay.');
    const press = parsePress(new URLSearchParams(body).get('payload'));
    if (this.presses.size >= MAX_PRESSES)
      throw new WebError(503, 'busy', 'Too many Slack presses are being answered at once; press again in a moment.');
    send(response, 200, 'text/plain; charset=utf-8', '');
    if (press === undefined) return;
    const answering = this.answer(press, this.pageUrl!).finally(() => this.presses.delete(answering));
    this.presses.add(answering);
  }

  /** The body as Slack signed it: read here, or the text a raw parser in front left on `req.body`. */
  private async rawBody(request: IncomingMessage): Promise<string> {
    const given = (request as IncomingMessage & { body?: unknown }).body;
    if (typeof given === 'string' || Buffer.isBuffer(given)) {
      const text = given.toString();
      if (Buffer.byteLength(text) > MAX_INTERACTION_BYTES)
        throw new WebError(413, 'too_large', `Over ${MAX_INTERACTION_BYTES / 1024} KB: not a Slack interaction.`);
      return text;
    }
    if (given !== undefined || request.readableEnded)
      throw new WebError(
        400,
        'usage',
        "A body parser in front of the inbox read Slack's request and kept no raw text, so its signature cannot be checked. Mount the inbox before the parser, or give slack/interactions a raw one (express.text({ type: '*/*' })).",
      );
    return readText(request, this.parts.timers, { maxBytes: MAX_INTERACTION_BYTES, budget: this.budget });
  }

  /** Answers a press as the person the Slack user is, then updates the message or tells them why not. */
  private async answer(press: Press, pageUrl: string): Promise<void> {
    const person = this.settings.people.get(press.user);
    const tell = (text: string): Promise<void> =>
      this.slack.call('chat.postEphemeral', { channel: press.channel, user: press.user, text }).then(
        () => undefined,
        (error: unknown) => this.warn(`could not tell Slack user ${press.user} (${(error as Error).message})`),
      );
    if (person === undefined)
      return tell(
        `Nothing was done: Slack user ${press.user} is not one of the people this inbox knows. Ask whoever runs Wardrik to add you to inboxWeb({ slack: { people } }).`,
      );
    const answerer: WebPerson = { by: person.id, groups: person.groups };
    try {
      if (press.action === APPROVE_ACTION) await this.api.approve(press.item, answerer, { digest: press.digest });
      else if (press.action === DENY_ACTION)
        await this.api.deny(press.item, answerer, { reason: `Denied in Slack by ${person.id}.` });
    } catch (error) {
      if (!(error instanceof WebError)) {
        this.warn(`answering inbox item "${press.item}" failed: ${(error as Error)?.message ?? String(error)}`);
        return tell('Nothing was done: the inbox failed to answer; try again, or answer on the page.');
      }
      await tell(error.message);
      // Answered already, or its arguments changed: show the message as the item stands now.
      if (error.status !== 409) return;
    }
    await this.update(press, pageUrl);
  }

  /** Replaces the message with the item as it stands: the outcome, or the approvals counted so far. */
  private async update(press: Press, pageUrl: string): Promise<void> {
    try {
      const item = await this.parts.inbox.get(press.item);
      if (item === undefined) return;
      await this.slack.call('chat.update', { channel: press.channel, ts: press.ts, ...slackMessage(item, pageUrl) });
    } catch (error) {
      this.warn(`could not update the message about inbox item "${press.item}": ${(error as Error).message}`);
    }
  }

  private warn(what: string): void {
    this.parts.events.emit({ type: 'warning', message: `inboxWeb Slack (${this.settings.channel}): ${what}` });
  }
}
