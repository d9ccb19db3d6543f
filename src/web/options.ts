import type { IncomingMessage } from 'node:http';
import { ConfigurationError } from '../errors.js';
import { httpServerSettings, type HttpServerOptions, type HttpServerSettings } from '../http/server-options.js';
import { numberOptions, readNumbers, timerRule, type NumberPaths, type NumberRule } from '../options.js';
import { peopleByTokenHash, readPeopleFile, type InboxPersonOptions, type NamedPerson } from './people.js';
import { slackSettings, type SlackOptions, type SlackSettings } from './slack-options.js';
import { webhookKey } from './webhook-signature.js';

/**
 * Who is asking, from the app's own login: the person's name (recorded as `by` on their answers), or
 * nothing when nobody is signed in. It may read cookies or headers the app's middleware set; it is
 * called on every request, so keep it cheap.
 */
export type Authenticate = (
  request: IncomingMessage,
) => string | AuthenticatedPerson | undefined | null | Promise<string | AuthenticatedPerson | undefined | null>;

/** A person as the app's login knows them: `id` is recorded as `by`; `groups` are checked against rules' `approvers`. */
export interface AuthenticatedPerson {
  readonly id: string;
  readonly groups?: readonly string[];
}

/** A webhook that hears of every item that starts waiting (Slack and Teams incoming webhooks show its `text`). */
export interface WebhookOptions {
  /** Where to POST: an `http:` or `https:` URL. */
  readonly url: string;
  /**
   * Signs each message as Standard Webhooks says (`webhook-id`, `webhook-timestamp`, `webhook-signature`).
   * Best a Standard Webhooks secret, `whsec_` and the base64 of 24 to 64 random bytes; any other string of
   * at least 16 characters is used as its own bytes.
   */
  readonly secret: string;
  /** Backoff between tries of a failed delivery: from 1 000 ms, doubling, at most 300 000 ms unless set. */
  readonly retry?: { readonly baseDelayMs?: number; readonly maxDelayMs?: number };
}

/** What `wardrik.inboxWeb(options)` takes. */
export interface InboxWebOptions {
  /**
   * The app's login decides who may answer: return the person's name, or nothing for 401. Without it,
   * people sign in with the token.
   */
  readonly authenticate?: Authenticate;
  /**
   * The sign-in token: `WARDRIK_WEB_TOKEN` unless given, else one is generated (read it from `web.token`
   * and hand it to the people who approve). At least 16 characters. With `authenticate`, only a token
   * given here opens the sign-in form too; the environment's is not used. One token is for one person:
   * whoever holds it types the name recorded as `by`. For several, give `people` instead.
   */
  readonly token?: string;
  /**
   * Named people, each with a token of their own: `by` is the person the token belongs to, never a
   * name typed at sign-in. `WARDRIK_WEB_PEOPLE` names a people file (see `wardrik web --people`) unless
   * given. Not with `token`.
   */
  readonly people?: readonly InboxPersonOptions[];
  /**
   * Where people open the page, such as `https://ops.example.com/inbox/`: the link in notifications.
   * `listen()` sets it to its own address unless given; a mounted handler with `notify` needs it.
   */
  readonly publicUrl?: string;
  /**
   * The path a plain `node:http` server mounts the handler under, such as `/inbox`, stripped before
   * routing. Not needed under Express, Connect or NestJS, which strip the mount path themselves.
   */
  readonly basePath?: string;
  /** Origins other than the request's own `Host` and `publicUrl`'s that may send answers, such as a proxy's public origin. */
  readonly origins?: readonly string[];
  /** Tell people when an item starts waiting, on any node sharing the store. */
  readonly notify?: { readonly webhook?: WebhookOptions };
  /**
   * Answer approvals from Slack: each one that starts waiting is posted to `channel` with Approve and Deny
   * buttons, answered at `slack/interactions` under the inbox (the Slack app's Interactivity Request URL).
   */
  readonly slack?: SlackOptions;
  /** How often the page and the notifier look for new items: 2 000 ms unless set. */
  readonly pollMs?: number;
  /** How long a signed-in session lasts: 12 hours unless set. */
  readonly sessionMs?: number;
  /** Host allow-list, proxy header, time-outs, connection and body caps, the slowing of wrong tokens. */
  readonly http?: HttpServerOptions;
}

/** The options checked, with defaults filled in. */
export interface InboxWebSettings {
  readonly authenticate?: Authenticate;
  readonly token?: string;
  readonly tokenGenerated: boolean;
  /** Named people: who each token's SHA-256 (hex) belongs to, with their groups. */
  readonly people?: ReadonlyMap<string, NamedPerson>;
  readonly publicUrl?: string;
  readonly basePath?: string;
  readonly origins: readonly string[];
  readonly webhook?: WebhookSettings;
  readonly slack?: SlackSettings;
  readonly pollMs: number;
  readonly sessionMs: number;
  readonly http: HttpServerSettings;
}

/** A webhook's options checked, with its backoff filled in. */
export interface WebhookSettings extends WebhookOptions {
  readonly retry: { readonly baseDelayMs: number; readonly maxDelayMs: number };
}

const MIN_SECRET = 16;
const MILLISECONDS: NumberRule = { min: 1, unit: 'milliseconds' };

/** The page's own number options, each declared once: where in `InboxWebOptions`, default and range. */
export const WEB_NUMBERS = numberOptions<
  InboxWebOptions,
  `http.${NumberPaths<HttpServerOptions>}` | `notify.webhook.${NumberPaths<WebhookOptions>}`
>()({
  pollMs: { path: 'pollMs', default: 2_000, rule: MILLISECONDS },
  sessionMs: { path: 'sessionMs', default: 12 * 3_600_000, rule: MILLISECONDS },
});

/** A webhook's number options, each declared once. */
export const WEBHOOK_NUMBERS = numberOptions<WebhookOptions>()({
  baseDelayMs: { path: 'retry.baseDelayMs', default: 1_000, rule: MILLISECONDS },
  // Every wait is at most maxDelayMs, so it alone must fit a Node timer.
  maxDelayMs: { path: 'retry.maxDelayMs', default: 300_000, rule: { ...timerRule({ min: 1 }), unit: 'milliseconds' } },
});

/** Checks `inboxWeb` options; a bad one throws a ConfigurationError naming it, the cause and the fix. */
export function inboxWebSettings(
  options: InboxWebOptions,
  env: Readonly<Record<string, string | undefined>>,
  generate: () => string,
): InboxWebSettings {
  if (options === null || typeof options !== 'object')
    throw new ConfigurationError('inboxWeb(options) takes an object, such as { authenticate } or { token }.');
  const authenticate = options.authenticate;
  if (authenticate !== undefined && typeof authenticate !== 'function') {
    throw new ConfigurationError('inboxWeb: authenticate must be a function (request) => person name or nothing.');
  }
  // With the app's own login, a token is only what the app passes: WARDRIK_WEB_TOKEN (set for `wardrik web`, say) must not open a second door.
  const fromEnv = authenticate === undefined && env.WARDRIK_WEB_TOKEN !== '' ? env.WARDRIK_WEB_TOKEN : undefined;
  let token = options.token ?? fromEnv;
  const source = options.token !== undefined ? 'inboxWeb: token' : 'WARDRIK_WEB_TOKEN';
  if (token !== undefined && (typeof token !== 'string' || token.length < MIN_SECRET)) {
    throw new ConfigurationError(
      `${source} must be at least ${MIN_SECRET} characters, so it cannot be guessed; generate one with: openssl rand -hex 24`,
    );
  }
  const people = peopleOf(options, authenticate === undefined ? env : {});
  if (people !== undefined && token !== undefined) {
    throw new ConfigurationError(
      `inboxWeb: both named people and a shared token (${source}) are given; with people, each signs in with their own token. Give one or the other.`,
    );
  }
  const tokenGenerated = token === undefined && authenticate === undefined && people === undefined;
  if (tokenGenerated) token = generate();
  const publicUrl = options.publicUrl === undefined ? undefined : pageUrl(options.publicUrl);
  const origins = (options.origins ?? []).map((origin) => {
    try {
      return new URL(origin).origin;
    } catch {
      throw new ConfigurationError(
        `inboxWeb: origins has ${JSON.stringify(origin)}, which is not an origin such as "https://ops.example.com".`,
      );
    }
  });
  // Where people open the page is the page's own origin, even when a proxy in front sends another Host.
  if (publicUrl !== undefined) origins.push(new URL(publicUrl).origin);
  const basePath = options.basePath?.replace(/\/+$/, '');
  if (basePath !== undefined && !/^\/[\w\-./~%]*$/.test(basePath)) {
    throw new ConfigurationError(
      `inboxWeb: basePath ${JSON.stringify(options.basePath)} is not a URL path; give one such as "/inbox".`,
    );
  }
  const given = options.notify?.webhook;
  const webhook = given === undefined ? undefined : webhookSettings(given);
  const slack = options.slack === undefined ? undefined : slackSettings(options.slack, env);
  const numbers = readNumbers('inboxWeb: ', options, WEB_NUMBERS);
  return {
    ...(authenticate === undefined ? {} : { authenticate }),
    ...(token === undefined ? {} : { token }),
    tokenGenerated,
    ...(people === undefined ? {} : { people }),
    ...(publicUrl === undefined ? {} : { publicUrl }),
    ...(basePath === undefined || basePath === '' ? {} : { basePath }),
    origins,
    ...(webhook === undefined ? {} : { webhook }),
    ...(slack === undefined ? {} : { slack }),
    pollMs: numbers.pollMs,
    sessionMs: numbers.sessionMs,
    http: httpServerSettings('inboxWeb: http', options.http),
  };
}

/** The people given, or those of the file `WARDRIK_WEB_PEOPLE` names; checked. */
function peopleOf(
  options: InboxWebOptions,
  env: Readonly<Record<string, string | undefined>>,
): ReadonlyMap<string, NamedPerson> | undefined {
  if (options.people !== undefined) return peopleByTokenHash(options.people, 'inboxWeb');
  const file = env.WARDRIK_WEB_PEOPLE;
  return file === undefined || file === ''
    ? undefined
    : peopleByTokenHash(readPeopleFile(file), `WARDRIK_WEB_PEOPLE (${file})`);
}

/** The page's address with a closing slash, so the page's relative links stay under it. */
export function pageUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigurationError(
      `inboxWeb: publicUrl ${JSON.stringify(text)} is not a URL; give where people open the page, such as "https://ops.example.com/inbox/".`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ConfigurationError(`inboxWeb: publicUrl must be http: or https:, not ${url.protocol}`);
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  url.search = '';
  url.hash = '';
  return url.toString();
}

function webhookSettings(webhook: WebhookOptions): WebhookSettings {
  let url: URL | undefined;
  try {
    url = new URL(webhook.url);
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new ConfigurationError(
      `notify.webhook.url ${JSON.stringify(webhook.url)} is not an http(s) URL; give the incoming webhook's address.`,
    );
  }
  if (typeof webhook.secret !== 'string' || webhook.secret.length < MIN_SECRET) {
    throw new ConfigurationError(
      `notify.webhook.secret must be at least ${MIN_SECRET} characters: the receiver checks each message's HMAC-SHA256 signature with it.`,
    );
  }
  webhookKey(webhook.secret, 'notify.webhook.secret');
  // No order between the two: a first wait longer than maxDelayMs is held to it, as the doc says, since
  // baseDelayMs may be longer than a timer waits (test/options.test.ts takes 3e9).
  const retry = readNumbers('notify.webhook.', webhook, WEBHOOK_NUMBERS);
  return { ...webhook, retry };
}
