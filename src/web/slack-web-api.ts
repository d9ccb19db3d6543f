import type { Timers } from '../clock.js';
import type { SlackSettings } from './slack-options.js';

const TIMEOUT_MS = 10_000;
/** A Web API answer is a short JSON object; more than this is not Slack's. */
const MAX_ANSWER_BYTES = 256 * 1024;

/** A Web API call that failed: Slack's `error` (such as `channel_not_found`), or what went wrong on the way. */
export class SlackCallError extends Error {
  constructor(
    message: string,
    /** How long Slack asked to wait (HTTP 429's Retry-After), when it did. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/**
 * The few methods of Slack's Web API the inbox uses (`chat.postMessage`, `chat.update`,
 * `chat.postEphemeral`), as JSON POSTs with the bot token. Slack answers HTTP 200 with `ok: false` and an
 * `error` for most failures, and 429 with `Retry-After` when it rate-limits.
 */
export class SlackWebApi {
  constructor(
    private readonly settings: SlackSettings,
    private readonly timers: Timers,
  ) {}

  async call(method: string, body: object, signal?: AbortSignal): Promise<Record<string, unknown>> {
    const late = new AbortController();
    const timeout = this.timers.after(TIMEOUT_MS, () => late.abort(new Error(`no answer within ${TIMEOUT_MS} ms`)));
    try {
      const response = await fetch(new URL(method, this.settings.apiUrl), {
        method: 'POST',
        headers: {
          authorization: `Bearer ${this.settings.botToken}`,
          'content-type': 'application/json; charset=utf-8',
        },
        body: JSON.stringify(body),
        redirect: 'error',
        signal: signal === undefined ? late.signal : AbortSignal.any([signal, late.signal]),
      });
      const text = await response.text();
      if (response.status === 429) {
        const seconds = Number(response.headers.get('retry-after'));
        throw new SlackCallError(
          `Slack's ${method} is rate-limited`,
          Number.isFinite(seconds) && seconds >= 0 ? Math.min(seconds, 3_600) * 1_000 : 1_000,
        );
      }
      if (!response.ok) throw new SlackCallError(`Slack's ${method} answered HTTP ${response.status}`);
      if (text.length > MAX_ANSWER_BYTES)
        throw new SlackCallError(`Slack's ${method} answered with over ${MAX_ANSWER_BYTES} bytes`);
      const answer = JSON.parse(text) as Record<string, unknown>;
      if (answer.ok !== true)
        throw new SlackCallError(
          `Slack's ${method} refused: ${typeof answer.error === 'string' ? answer.error.slice(0, 200) : 'no error given'}${hint(answer.error)}`,
        );
      return answer;
    } catch (error) {
      if (error instanceof SlackCallError) throw error;
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new SlackCallError(
        `Slack's ${method} failed (${cause?.code ?? cause?.message ?? (error as Error).message})`,
      );
    } finally {
      timeout.cancel();
    }
  }
}

/** What to do about Slack's commonest refusals. */
function hint(error: unknown): string {
  if (error === 'not_in_channel' || error === 'channel_not_found')
    return ' (invite the app to slack.channel: /invite @YourApp in the channel)';
  if (error === 'invalid_auth' || error === 'not_authed' || error === 'token_revoked')
    return ' (check slack.botToken, the xoxb- token under OAuth & Permissions)';
  if (error === 'missing_scope') return ' (add the chat:write scope and reinstall the app)';
  return '';
}
