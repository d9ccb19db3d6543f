import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { MAY_HAVE_HAPPENED } from '../errors.js';
import { LABELS_META } from '../mcp/labels-meta.js';
import { answerText, type ToolAnswer } from '../tools/result.js';

/**
 * A call's answer as an MCP `tools/call` result. A tool's content parts go as they are; otherwise its
 * output as text, and as `structuredContent` too when it is an object, so a Wardrik hub gets the value
 * back. Errors (bad arguments with every failing field, a denial, a spent budget, the tool's own) are
 * `isError` results the client's model can act on. Every result carries the labels in `_meta`.
 */
export function callResult(answer: ToolAnswer): CallToolResult {
  const _meta = { [LABELS_META]: answer.labels };
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
  return waitingResult(answer);
}

/** A call still waiting for a person when the client can wait no longer: nothing ran, and how to get its result. */
export function waitingResult(answer: Extract<ToolAnswer, { status: 'parked' }>): CallToolResult {
  const item = answer.inboxId === undefined ? '' : ` (inbox item ${answer.inboxId})`;
  const text =
    `This call is waiting for a person${item}: ${answer.reason} Nothing has run yet. ` +
    'Call the tool again with the same arguments in this session to wait for its result; it will run once, when approved.';
  return {
    content: [{ type: 'text', text }],
    isError: true,
    _meta: {
      [LABELS_META]: answer.labels,
      ...(answer.inboxId === undefined ? {} : { 'wardrik/inbox': answer.inboxId }),
    },
  };
}

/**
 * A call that may have had its effect, parked `in_doubt` for a person: `opening` says why (ending in ", "),
 * then the words every in-doubt answer uses (do not repeat it; a person settles it) and the inbox item,
 * also in `_meta['wardrik/inbox']`.
 */
export function inDoubtResult(opening: string, inboxId: string, labels: readonly string[]): CallToolResult {
  const text = `${opening}${MAY_HAVE_HAPPENED.slice(0, -1)} (inbox item ${inboxId}).`;
  return {
    content: [{ type: 'text', text }],
    isError: true,
    _meta: { [LABELS_META]: labels, 'wardrik/inbox': inboxId },
  };
}
