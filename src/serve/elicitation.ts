import type { ClientCapabilities, ElicitRequest, ElicitResult } from '@modelcontextprotocol/server';
import { ConflictError } from '../errors.js';
import type { Inbox } from '../inbox/inbox.js';
import { OUTSIDE } from '../policy/policy.js';

/**
 * Sends the client an `elicitation/create` request on the call's own stream (the handler's
 * `ctx.mcpReq.send`, which checks the answer against MCP's schema).
 */
export type SendElicitation = (request: ElicitRequest, signal: AbortSignal) => Promise<ElicitResult>;

const MAX_ARGUMENTS_CHARS = 4_000;

/** Why a call's approval was not put to the client's own user: said to the client while it waits. */
export const NOT_ASKED_AFTER_OUTSIDE = `This session has read text from outside (labelled "${OUTSIDE}"), so its own user is not asked to approve the call: a person answers it in the inbox.`;

/**
 * Whether a run's labels rule out asking the client's own user: once the session has read outside text,
 * that text may have written the call and may drive the client that answers the form (an agent that accepts
 * by itself). A confidential label with `outside` is covered too, since `outside` alone decides.
 */
export function readOutside(labels: readonly string[]): boolean {
  return labels.includes(OUTSIDE);
}

/** One approval put to the client's own user. */
export interface ClientQuestion {
  readonly inbox: Inbox;
  readonly inboxId: string;
  /** Who answers: the client's identity, recorded as `by`. */
  readonly by: string;
  readonly send: SendElicitation;
  readonly signal: AbortSignal;
  /** Whether the session's run carries `outside` now, read again before a yes is taken. */
  readonly readOutside: () => Promise<boolean>;
}

/** Whether the client says it can show a form to its user (`elicitation: {}` or `{ form: {} }`). */
export function canElicit(capabilities: ClientCapabilities | undefined): boolean {
  const elicitation = capabilities?.elicitation as { form?: unknown; url?: unknown } | undefined;
  return elicitation !== undefined && (elicitation.form !== undefined || elicitation.url === undefined);
}

/**
 * Asks the client's own user to approve a parked call (`approvals: { via: 'elicitation' }`): the
 * exact arguments and the run's labels are shown, and their answer is the inbox's, recorded with the
 * client's identity as `by`. Never called for a run that has read outside text (see `readOutside`), and a
 * yes that comes after the run read some while the form was open is set aside (answers `'set_aside'`): the
 * client may have answered as that text told it. A user who cancels (or a client that fails) leaves the
 * item pending for anyone else; an item answered meanwhile by someone else stays as they answered it.
 */
export async function askClientUser(ask: ClientQuestion): Promise<'set_aside' | undefined> {
  const { inbox, by, send, signal } = ask;
  const item = await inbox.get(ask.inboxId);
  if (item === undefined || item.status !== 'pending' || item.kind !== 'approval') return undefined;
  // A rule that names who may answer (or keeps the requester out) is for people in the inbox, not the client.
  if (item.answerers !== undefined) return undefined;
  let args = JSON.stringify(item.arguments, null, 2) ?? 'null';
  if (args.length > MAX_ARGUMENTS_CHARS)
    args = `${args.slice(0, MAX_ARGUMENTS_CHARS)}\n[${args.length - MAX_ARGUMENTS_CHARS} more characters not shown]`;
  const labels = item.labels.length === 0 ? 'none' : item.labels.join(', ');
  const message = [
    `A tool call waits for your approval: ${item.tool}`,
    `Arguments:\n${args}`,
    `Labels on this conversation: ${labels}`,
    `Why it asks: ${item.reason}`,
  ].join('\n\n');
  let answer: { action?: string; content?: { approve?: unknown; reason?: unknown } };
  try {
    answer = (await send(
      {
        method: 'elicitation/create',
        params: {
          mode: 'form',
          message,
          requestedSchema: {
            type: 'object',
            properties: {
              approve: {
                type: 'boolean',
                title: 'Approve this call',
                description: 'Yes runs it once, exactly as shown; no refuses it.',
              },
              reason: { type: 'string', title: 'Why (when refusing)', maxLength: 500 },
            },
            required: ['approve'],
          },
        },
      },
      signal,
    )) as typeof answer;
  } catch {
    return undefined; // the client could not ask: the item waits for anyone else
  }
  try {
    if (answer.action === 'accept' && answer.content?.approve === true) {
      // Labels are written before an answer reaches the client: one it read before saying yes shows here.
      if (await ask.readOutside()) return 'set_aside';
      await inbox.approve(item.id, { by, digest: item.digest });
    } else if (answer.action === 'decline' || (answer.action === 'accept' && answer.content?.approve === false)) {
      const reason =
        typeof answer.content?.reason === 'string' && answer.content.reason.trim() !== ''
          ? answer.content.reason.slice(0, 500)
          : 'The user declined it.';
      await inbox.deny(item.id, { reason, by });
    }
  } catch (error) {
    if (!(error instanceof ConflictError)) throw error; // someone answered first: theirs stands
  }
  return undefined;
}
