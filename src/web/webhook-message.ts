import type { InboxRecord } from '../store/store.js';
import { printableLine } from './text.js';

/**
 * A message's `item.arguments` when their JSON is at most this many characters; longer ones are left
 * out (with `argumentsCut`), so that every message fits a receiver's body limit (express.json() takes
 * 100 KB) and Standard Webhooks' advice of under 20 KB. The page shows them whole.
 */
export const MESSAGE_ARGUMENTS = 8_000;
/** A message's `item.reason` (and the reason in `text`) is cut at this many characters. */
const MESSAGE_REASON = 1_000;
/** The arguments in `text`, the line Slack and Teams show, are cut at this many characters. */
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
  readonly item: Pick<
    InboxRecord,
    'id' | 'kind' | 'tool' | 'agent' | 'run' | 'call' | 'digest' | 'labels' | 'reason' | 'createdAt'
  > & {
    /** The call's arguments, exactly, when their JSON is at most 8 000 characters; else absent, and `argumentsCut` says so. */
    readonly arguments?: unknown;
    /** Present when `arguments` was left out: how long their JSON is, and the limit. The page shows them whole. */
    readonly argumentsCut?: { readonly characters: number; readonly limit: number };
  };
  /** When this attempt was sent, in milliseconds since the epoch (the `webhook-timestamp` header has it in seconds). */
  readonly sentAt: number;
}

/** The message about `item`, linking to it under `pageUrl`. */
export function webhookMessage(
  item: InboxRecord,
  type: InboxWaitingMessage['type'],
  pageUrl: string,
  now: number,
): InboxWaitingMessage {
  // A query, not a fragment: it survives the sign-in a person may need first.
  const url = `${pageUrl}?item=${encodeURIComponent(item.id)}`;
  const what =
    item.kind === 'approval'
      ? 'Approval needed'
      : item.kind === 'park'
        ? 'A tool asks a person'
        : 'A call in doubt after a crash';
  const json = JSON.stringify(item.arguments) ?? 'none';
  const reason = cut(item.reason, MESSAGE_REASON, 'it');
  const labels =
    item.labels.length === 0
      ? ''
      : ` · labels: ${item.labels.join(', ')}${item.labels.includes('outside') ? ' (asked for after the run read text from outside)' : ''}`;
  const waited =
    type === 'inbox.escalated' ? `Escalated, unanswered for ${Math.round((now - item.createdAt) / 60_000)} min: ` : '';
  const text = `${waited}${what}: ${item.tool} ${cut(json, TEXT_ARGUMENTS, 'them')} · asked by agent ${item.agent} in run ${item.run}${labels} · ${reason} · Open: ${url}`;
  const { id, kind, tool, agent, run, call, digest, labels: itemLabels, createdAt } = item;
  const args =
    json.length <= MESSAGE_ARGUMENTS
      ? { arguments: item.arguments }
      : { argumentsCut: { characters: json.length, limit: MESSAGE_ARGUMENTS } };
  return {
    type,
    text: slackSafe(oneLine(text)),
    url,
    item: { id, kind, tool, agent, run, call, ...args, digest, labels: itemLabels, reason, createdAt },
    sentAt: now,
  };
}

/** The text cut at `max` characters, saying so; the page shows it whole. */
function cut(text: string, max: number, whole: 'it' | 'them'): string {
  return text.length <= max
    ? text
    : `${text.slice(0, max)}… (${text.length} characters in all; the page shows ${whole} whole)`;
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
