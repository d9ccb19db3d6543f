import type { ModelMessage, ToolModelMessage } from 'ai';
import type { Wardrik } from '../di/wardrik.js';
import {
  answerInInbox,
  call,
  waitsForApproval,
  type AiSdkToolsOptions,
  type Gate,
  type PersonResponse,
} from './gate.js';

/** An approval request in the messages, with the tool call it asks about. */
interface Request {
  readonly approvalId: string;
  readonly call: { readonly id: string; readonly name: string; readonly input: unknown };
}

/** The person's response to the approval request of call `id`, if the messages hold one. */
export function approvalIn(messages: readonly ModelMessage[], id: string): PersonResponse | undefined {
  const request = requests(messages).find((r) => r.call.id === id);
  return request === undefined ? undefined : responses(messages).get(request.approvalId);
}

/**
 * Carries a person's answers across, both ways, for the approval requests of `aiSdkTools`' tools in a
 * conversation's `messages`, before the app's next `generateText`: a response the app added (a denial too,
 * for which the AI SDK runs nothing) is recorded in Wardrik's inbox, and a call answered in the inbox (the
 * page, the CLI, the API, on any node) gets its response added. Returns the messages to send next.
 * `options` are the ones the tools were made with, `run` included.
 */
export async function inboxApprovals(
  wardrik: Wardrik,
  options: AiSdkToolsOptions & { readonly run: string },
  messages: readonly ModelMessage[],
): Promise<ModelMessage[]> {
  const gate: Gate = { wardrik, options, run: options.run };
  const answered = responses(messages);
  const added: ToolModelMessage['content'] = [];
  for (const request of requests(messages)) {
    const answer = await call(gate, request.call.name, request.call.id, request.call.input);
    const response = answered.get(request.approvalId);
    if (response !== undefined) {
      if (waitsForApproval(answer)) await answerInInbox(gate, answer.inboxId, response);
    } else if (!waitsForApproval(answer)) {
      // Answered in the inbox: a denial is a `denied` answer; any other means the person let it run.
      const denied = answer.status === 'error' && answer.code === 'denied';
      added.push({
        type: 'tool-approval-response',
        approvalId: request.approvalId,
        approved: !denied,
        ...(denied ? { reason: answer.message } : {}),
      });
    }
  }
  return added.length === 0 ? [...messages] : [...messages, { role: 'tool', content: added }];
}

function requests(messages: readonly ModelMessage[]): Request[] {
  const calls = new Map<string, { name: string; input: unknown }>();
  const found: { approvalId: string; toolCallId: string }[] = [];
  for (const message of messages) {
    if (message.role !== 'assistant' || typeof message.content === 'string') continue;
    for (const part of message.content) {
      if (part.type === 'tool-call') calls.set(part.toolCallId, { name: part.toolName, input: part.input });
      else if (part.type === 'tool-approval-request') found.push(part);
    }
  }
  return found.flatMap(({ approvalId, toolCallId }) => {
    const made = calls.get(toolCallId);
    return made === undefined ? [] : [{ approvalId, call: { id: toolCallId, ...made } }];
  });
}

function responses(messages: readonly ModelMessage[]): Map<string, PersonResponse> {
  const found = new Map<string, PersonResponse>();
  for (const message of messages) {
    if (message.role !== 'tool') continue;
    for (const part of message.content)
      if (part.type === 'tool-approval-response')
        found.set(part.approvalId, {
          approved: part.approved,
          ...(part.reason === undefined ? {} : { reason: part.reason }),
        });
  }
  return found;
}
