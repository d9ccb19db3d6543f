import { whoMayAnswer } from '../inbox/permissions.js';
import type { InboxRecord } from '../store/store.js';
import { printableLine } from './text.js';

/** The arguments' JSON in a Slack message is cut at this many characters, saying so; the page shows them whole. */
export const SLACK_ARGUMENTS = 2_000;
export const APPROVE_ACTION = 'wardrik_approve';
export const DENY_ACTION = 'wardrik_deny';

/** A message as `chat.postMessage` and `chat.update` take it: the blocks, and `text` for notifications. */
export interface SlackMessage {
  readonly text: string;
  readonly blocks: readonly object[];
}

/** What a button carries back: the item, and the digest of the arguments the message showed. */
export interface ButtonValue {
  readonly item: string;
  readonly digest: string;
}

const OUTSIDE =
  'outside: asked for after the run read text from outside (a web page, an e-mail, a tool result). Check that the arguments are what you want, not what that text asked for.';
/** Slack's own limits: a header's text, a plain text field, a section's text. */
const HEADER_MAX = 150;
const FIELD_MAX = 2_000;
const TEXT_MAX = 3_000;

/**
 * The message about an item, as it stands: while it waits, the Approve and Deny buttons (and the
 * approvals counted so far); once answered, who answered and how, in their place. Everything a tool or a
 * model wrote goes in plain text or a preformatted rich text element, never in mrkdwn, so it can neither
 * mention `@channel` nor make a link.
 */
export function slackMessage(item: InboxRecord, pageUrl: string): SlackMessage {
  const url = `${pageUrl}?item=${encodeURIComponent(item.id)}`;
  const what = item.kind === 'tool_change' ? 'A tool changed' : 'Approval needed';
  const fields = [
    plain(`Tool: ${item.tool}`),
    plain(`Asked by: agent ${item.agent}${item.requester === undefined ? '' : ` for ${item.requester}`}`),
    plain(`Run: ${item.run}`),
  ];
  const blocks: object[] = [
    { type: 'header', text: plain(`${what}: ${item.tool}`, HEADER_MAX) },
    { type: 'section', fields },
    argumentsBlock(item.arguments),
    { type: 'context', elements: [{ type: 'mrkdwn', text: `<${url}|Open the item in the inbox>` }] },
  ];
  const notes = [`Why it asks: ${item.reason}`];
  if (item.labels.length > 0)
    notes.push(`Labels: ${item.labels.map((label) => (label === 'outside' ? OUTSIDE : label)).join('; ')}`);
  if (item.answerers !== undefined) notes.push(`Who may answer: ${whoMayAnswer(item)}.`);
  blocks.push({ type: 'section', text: plain(notes.join('\n'), TEXT_MAX) });
  const approvals = item.approvals ?? [];
  const quorum = item.answerers?.quorum;
  if (item.status === 'pending') {
    if (quorum !== undefined && quorum > 1)
      blocks.push({
        type: 'context',
        elements: [
          plain(
            `Approvals so far: ${approvals.length} of ${quorum}${approvals.length === 0 ? '' : ` (${approvals.map((given) => given.by).join(', ')})`}.`,
          ),
        ],
      });
    const value = JSON.stringify({ item: item.id, digest: item.digest } satisfies ButtonValue);
    blocks.push({
      type: 'actions',
      block_id: 'wardrik_answer',
      elements: [
        { type: 'button', action_id: APPROVE_ACTION, style: 'primary', text: plain('Approve'), value },
        { type: 'button', action_id: DENY_ACTION, style: 'danger', text: plain('Deny'), value },
      ],
    });
  } else {
    blocks.push({ type: 'section', text: plain(outcome(item), TEXT_MAX) });
  }
  const state = item.status === 'pending' ? what : outcome(item);
  return { text: escaped(printableLine(`${state}: ${item.tool}, asked by agent ${item.agent}`)), blocks };
}

/** How the item ended, in words: who approved (all of them, for a quorum) or denied it. */
function outcome(item: InboxRecord): string {
  const when = item.answeredAt === undefined ? '' : ` at ${new Date(item.answeredAt).toISOString()}`;
  const approvers = (item.approvals ?? []).map((given) => given.by);
  if (item.status === 'approved')
    return `Approved by ${approvers.length > 1 ? approvers.join(' and ') : (item.by ?? 'someone')}${when}.`;
  if (item.status === 'denied') return `Denied by ${item.by ?? 'someone'}${when}.`;
  return `Answered by ${item.by ?? 'someone'}${when}.`;
}

/** The arguments' JSON, exactly, in a preformatted block: cut at SLACK_ARGUMENTS characters, saying so. */
function argumentsBlock(args: unknown): object {
  const json = JSON.stringify(args, null, 2) ?? 'none';
  const cut = json.length > SLACK_ARGUMENTS;
  const heading = cut
    ? `Arguments, the first ${SLACK_ARGUMENTS} of ${json.length} characters (the page shows them whole):`
    : 'Arguments:';
  return {
    type: 'rich_text',
    elements: [
      { type: 'rich_text_section', elements: [{ type: 'text', text: heading }] },
      {
        type: 'rich_text_preformatted',
        elements: [{ type: 'text', text: cut ? `${json.slice(0, SLACK_ARGUMENTS)}…` : json }],
      },
    ],
  };
}

/** Plain text cut at `max` characters: Slack refuses the whole message when one text is too long. */
function plain(text: string, max = FIELD_MAX): { type: 'plain_text'; text: string; emoji: false } {
  return { type: 'plain_text', text: text.length <= max ? text : `${text.slice(0, max - 1)}…`, emoji: false };
}

/** Slack reads `<…>` as links and mentions and `&` as an entity: escaped as Slack documents. */
export function escaped(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
