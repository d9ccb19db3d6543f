import type { CallToolResult } from '@modelcontextprotocol/server';
import { MAY_HAVE_HAPPENED } from '../errors.js';
import { LABELS_META, TRUST_ANNOTATIONS_META } from '../mcp/labels-meta.js';
import { OUTSIDE } from '../policy/policy.js';
import { answerText, type ToolAnswer } from '../tools/result.js';

/**
 * A call's answer as an MCP `tools/call` result. A tool's content parts go as they are; otherwise its
 * output as text, and as `structuredContent` too when it is an object, so a Wardrik hub gets the value
 * back. Errors (bad arguments with every failing field, a denial, a spent budget, the tool's own) are
 * `isError` results the client's model can act on. Every result carries the labels in `_meta` (see `labelsMeta`).
 */
export function callResult(answer: ToolAnswer, confidential: ReadonlySet<string>): CallToolResult {
  const _meta = labelsMeta(answer.labels, confidential);
  if (answer.status === 'ok') {
    if (answer.content !== undefined) return { content: [...answer.content] as CallToolResult['content'], _meta };
    const output = answer.output;
    const text = answerText(answer);
    const structured = output !== null && typeof output === 'object' && !Array.isArray(output);
    return {
      content: [{ type: 'text', text }],
      ...(structured ? { structuredContent: output as Record<string, unknown> } : {}),
      _meta,
    };
  }
  if (answer.status === 'error') return { content: [{ type: 'text', text: answer.message }], isError: true, _meta };
  return waitingResult(answer, confidential);
}

/**
 * A result's labels for any client: Wardrik's own (`wardrik/labels`, every one), and the draft trust
 * annotations other products read: `untrusted` when they include `outside`, `sensitive` when they include
 * a label the policy counts as confidential. Only claims made are written: the draft reads an absent one as
 * "no claim", never as "not sensitive".
 */
export function labelsMeta(labels: readonly string[], confidential: ReadonlySet<string>): Record<string, unknown> {
  const sensitive = labels.some((label) => confidential.has(label));
  const untrusted = labels.includes(OUTSIDE);
  if (!sensitive && !untrusted) return { [LABELS_META]: labels };
  return {
    [LABELS_META]: labels,
    [TRUST_ANNOTATIONS_META]: { ...(sensitive ? { sensitive: true } : {}), ...(untrusted ? { untrusted: true } : {}) },
  };
}

/** A call still waiting for a person when the client can wait no longer: nothing ran, and how to get its result. */
export function waitingResult(
  answer: Extract<ToolAnswer, { status: 'parked' }>,
  confidential: ReadonlySet<string>,
): CallToolResult {
  const item = answer.inboxId === undefined ? '' : ` (inbox item ${answer.inboxId})`;
  const text =
    `This call is waiting for a person${item}: ${answer.reason} Nothing has run yet. ` +
    'Call the tool again with the same arguments in this session to wait for its result; it will run once, when approved.';
  return {
    content: [{ type: 'text', text }],
    isError: true,
    _meta: {
      ...labelsMeta(answer.labels, confidential),
      ...(answer.inboxId === undefined ? {} : { 'wardrik/inbox': answer.inboxId }),
    },
  };
}

/**
 * A call that may have had its effect, parked `in_doubt` for a person: `opening` says why (ending in ", "),
 * then the words every in-doubt answer uses (do not repeat it; a person settles it) and the inbox item,
 * also in `_meta['wardrik/inbox']`.
 */
export function inDoubtResult(
  opening: string,
  inboxId: string,
  labels: readonly string[],
  confidential: ReadonlySet<string>,
): CallToolResult {
  const text = `${opening}${MAY_HAVE_HAPPENED.slice(0, -1)} (inbox item ${inboxId}).`;
  return {
    content: [{ type: 'text', text }],
    isError: true,
    _meta: { ...labelsMeta(labels, confidential), 'wardrik/inbox': inboxId },
  };
}
