import { ConfigurationError } from '../errors.js';
import { groupsOf, personId, type NamedPerson } from './people.js';

/** A Slack user as the inbox knows them: `id` is recorded as `by`; `groups` are checked against rules' `approvers`. */
export interface SlackPersonOptions {
  readonly id: string;
  readonly groups?: readonly string[];
}

/**
 * Answering approvals from Slack: each item that starts waiting is posted to `channel` with Approve and
 * Deny buttons, and a press comes back to the inbox's `slack/interactions` route, signed by Slack.
 */
export interface SlackOptions {
  /** The app's signing secret (Basic Information → App Credentials): `WARDRIK_SLACK_SIGNING_SECRET` unless given. */
  readonly signingSecret?: string;
  /** The bot's token, `xoxb-…`, with the `chat:write` scope: `WARDRIK_SLACK_BOT_TOKEN` unless given. */
  readonly botToken?: string;
  /** The id of the channel items are posted to, such as `C0123ABCD` (not its name); invite the app to it. */
  readonly channel: string;
  /**
   * Who each Slack user is here, by Slack user id: `{ U0123ABCD: { id: 'ana', groups: ['finance-leads'] } }`.
   * A press from a user not listed is refused: a Slack account alone answers nothing.
   */
  readonly people: Readonly<Record<string, SlackPersonOptions>>;
  /** Slack's Web API, `https://slack.com/api/` unless given: another address is for tests and proxies. */
  readonly apiUrl?: string;
}

/** The Slack options checked. */
export interface SlackSettings {
  readonly signingSecret: string;
  readonly botToken: string;
  readonly channel: string;
  /** Slack user id → the person and their groups. */
  readonly people: ReadonlyMap<string, NamedPerson>;
  /** The Web API's base, with a closing slash. */
  readonly apiUrl: string;
}

const SLACK_API = 'https://slack.com/api/';
const MIN_SECRET = 16;
const SLACK_KEYS = new Set(['signingSecret', 'botToken', 'channel', 'people', 'apiUrl']);
const PERSON_KEYS = new Set(['id', 'groups']);
const MAX_PEOPLE = 10_000;

/** Checks `inboxWeb({ slack })`; a bad option throws a ConfigurationError naming it, the cause and the fix. */
export function slackSettings(options: SlackOptions, env: Readonly<Record<string, string | undefined>>): SlackSettings {
  if (options === null || typeof options !== 'object' || Array.isArray(options))
    throw new ConfigurationError('inboxWeb: slack takes an object: { signingSecret, botToken, channel, people }.');
  const unknown = Object.keys(options).filter((key) => !SLACK_KEYS.has(key));
  if (unknown.length > 0)
    throw new ConfigurationError(
      `inboxWeb: slack has ${unknown.map((key) => JSON.stringify(key)).join(', ')}, which this version of Wardrik does not know; it takes signingSecret, botToken, channel, people and apiUrl.`,
    );
  const signingSecret = options.signingSecret ?? env.WARDRIK_SLACK_SIGNING_SECRET;
  if (typeof signingSecret !== 'string' || signingSecret.length < MIN_SECRET)
    throw new ConfigurationError(
      `inboxWeb: slack.signingSecret (or WARDRIK_SLACK_SIGNING_SECRET) must be the Slack app's signing secret, at least ${MIN_SECRET} characters: copy it from the app's Basic Information page, App Credentials.`,
    );
  const botToken = options.botToken ?? env.WARDRIK_SLACK_BOT_TOKEN;
  if (typeof botToken !== 'string' || !/^xoxb-[\w-]{8,}$/.test(botToken))
    throw new ConfigurationError(
      'inboxWeb: slack.botToken (or WARDRIK_SLACK_BOT_TOKEN) must be the app\'s bot token, "xoxb-…": install the app to the workspace and copy it from OAuth & Permissions.',
    );
  if (typeof options.channel !== 'string' || !/^[CGD][A-Z0-9]{2,40}$/.test(options.channel))
    throw new ConfigurationError(
      `inboxWeb: slack.channel ${JSON.stringify(options.channel)?.slice(0, 60)} is not a channel id; give the id, such as "C0123ABCD" (the channel's details show it), not its name: messages are updated by id.`,
    );
  return {
    signingSecret,
    botToken,
    channel: options.channel,
    people: slackPeople(options.people),
    apiUrl: apiUrl(options.apiUrl),
  };
}

function slackPeople(people: unknown): ReadonlyMap<string, NamedPerson> {
  const entries: [string, unknown][] =
    people !== null && typeof people === 'object' && !Array.isArray(people) ? Object.entries(people) : [];
  if (entries.length === 0 || entries.length > MAX_PEOPLE)
    throw new ConfigurationError(
      `inboxWeb: slack.people maps Slack user ids to people, 1 to ${MAX_PEOPLE} of them: { U0123ABCD: { id: 'ana', groups: ['finance-leads'] } } (a user's profile, ⋮, Copy member ID).`,
    );
  const byUser = new Map<string, NamedPerson>();
  for (const [user, person] of entries) {
    const at = `inboxWeb: slack.people.${user}`;
    if (!/^[UW][A-Z0-9]{2,40}$/.test(user))
      throw new ConfigurationError(
        `inboxWeb: slack.people has ${JSON.stringify(user).slice(0, 60)}, which is not a Slack user id such as "U0123ABCD" (a user's profile, ⋮, Copy member ID).`,
      );
    if (person === null || typeof person !== 'object' || Array.isArray(person))
      throw new ConfigurationError(`${at} is not an object; give { id: 'ana', groups: ['finance-leads'] }.`);
    const extra = Object.keys(person).filter((key) => !PERSON_KEYS.has(key));
    // Refused, not ignored: a key this version does not enforce must not be read as granting more.
    if (extra.length > 0)
      throw new ConfigurationError(
        `${at} has ${extra.map((key) => JSON.stringify(key)).join(', ')}, which this version of Wardrik does not know; a person has "id" and "groups".`,
      );
    const { id: given, groups } = person as Record<string, unknown>;
    const id = personId(given, `${at}.id`);
    byUser.set(user, Object.freeze({ id, groups: groupsOf(groups, `${at}.groups`) }));
  }
  return byUser;
}

function apiUrl(given: string | undefined): string {
  if (given === undefined) return SLACK_API;
  let url: URL | undefined;
  try {
    url = new URL(given);
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:'))
    throw new ConfigurationError(
      `inboxWeb: slack.apiUrl ${JSON.stringify(given)} is not an http(s) URL; leave it out for Slack's own (${SLACK_API}).`,
    );
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  return url.toString();
}
