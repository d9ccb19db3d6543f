import { randomUUID } from 'node:crypto';
import { jsonSchema, tool, type ToolSet } from 'ai';
import type { Wardrik } from '../di/wardrik.js';
import { ConfigurationError } from '../errors.js';
import { answerText, type ToolAnswer } from '../tools/result.js';
import { approvalIn } from './approvals.js';
import {
  answerInInbox,
  call,
  waitsForApproval,
  type AiSdkToolsOptions,
  type Gate,
  type PersonResponse,
} from './gate.js';

/**
 * An AI SDK `ToolSet` whose every call goes through Wardrik's runner: arguments checked, policy, labels,
 * budget and journal, the model's tool call id being the call's id within `run` (so a call is never run
 * twice, whatever the loop retries). A call that waits for a person becomes an AI SDK approval request
 * (`tool-approval-request`): `generateText` stops there, and the app's UI or Wardrik's inbox answers. The
 * next `generateText` with an approving `tool-approval-response` in its messages approves it in the inbox
 * and runs it, once; see `inboxApprovals` for an answer given in the inbox.
 */
export function aiSdkTools(wardrik: Wardrik, options: AiSdkToolsOptions): ToolSet {
  const gate: Gate = { wardrik, options, run: options.run ?? `ai-sdk-${randomUUID()}` };
  const entries = wardrik.tools(options.tools);
  if (entries.length === 0) {
    throw new ConfigurationError(
      `aiSdkTools: no tool matches ${JSON.stringify(options.tools)} (there are: ${
        wardrik
          .tools()
          .map((entry) => entry.name)
          .join(', ') || 'none'
      }). Name tools as "toolset/tool" patterns, such as "orders/*".`,
    );
  }
  const set: ToolSet = {};
  for (const entry of entries) {
    set[entry.name] = tool({
      ...(entry.title === undefined ? {} : { title: entry.title }),
      description: entry.description,
      inputSchema: jsonSchema<Record<string, unknown>>(entry.inputSchema as Parameters<typeof jsonSchema>[0]),
      needsApproval: async (input, { toolCallId, messages }) =>
        needsPerson(gate, entry.name, toolCallId, input, approvalIn(messages, toolCallId)),
      execute: async (input, { toolCallId }) => output(await call(gate, entry.name, toolCallId, input)),
    });
  }
  return set;
}

/**
 * The gate's decision, as the AI SDK asks for it before running a call: a call that parks for approval
 * needs a person; any other answer (it ran, or was refused) is in the journal for `execute` to return. With
 * the person's response in the messages, the inbox item is answered first, so the approved call runs once.
 */
async function needsPerson(
  gate: Gate,
  name: string,
  id: string,
  input: unknown,
  response: PersonResponse | undefined,
): Promise<boolean> {
  const answer = await call(gate, name, id, input);
  if (!waitsForApproval(answer)) return false;
  if (response !== undefined) await answerInInbox(gate, answer.inboxId, response);
  return true;
}

/** The answer as the model reads it; a refusal or failure is thrown, so the AI SDK gives the model an error result. */
function output(answer: ToolAnswer): string {
  if (answer.status === 'ok') return answerText(answer);
  throw new Error(answerText(answer));
}
