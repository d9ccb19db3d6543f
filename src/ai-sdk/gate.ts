import type { Wardrik } from '../di/wardrik.js';
import { ConflictError } from '../errors.js';
import type { PolicyRule } from '../policy/policy.js';
import type { ToolAnswer } from '../tools/result.js';

export interface AiSdkToolsOptions {
  /** Who makes the calls, as policies, budgets and the inbox name it. */
  readonly agent: string;
  /** Patterns of the tools to give the model, such as `['orders/*']`. */
  readonly tools: readonly string[];
  /**
   * The conversation the calls belong to: labels (`outside`) follow it, and a call is known by its id within
   * it. Keep it with the conversation and pass it again when you go on after an approval, in this process or
   * another. A new one for each `aiSdkTools` call when absent.
   */
  readonly run?: string;
  /** The agent's own policy rules, applied with Wardrik's (the most restrictive wins). */
  readonly policy?: readonly PolicyRule[];
  /** Dollars the calls of this run may spend on paid tools (the model's spend is the AI SDK's to count). */
  readonly budgetUsd?: number;
  /** Who answered, recorded in the inbox for approvals given through the AI SDK's approval responses. */
  readonly by?: string;
}

/** What the tools of one `aiSdkTools` share. */
export interface Gate {
  readonly wardrik: Wardrik;
  readonly options: AiSdkToolsOptions;
  readonly run: string;
}

/** A person's answer to an approval request, as the AI SDK's `tool-approval-response` carries it. */
export interface PersonResponse {
  readonly approved: boolean;
  readonly reason?: string;
}

/** Runs (or finds in the journal) the call `id` of tool `name`. */
export function call(gate: Gate, name: string, id: string, input: unknown): Promise<ToolAnswer> {
  const { options } = gate;
  return gate.wardrik.runner.run({
    agent: options.agent,
    run: gate.run,
    call: { id, name, arguments: input },
    tools: options.tools,
    ...(options.policy === undefined ? {} : { policy: options.policy }),
    ...(options.budgetUsd === undefined ? {} : { budgetUsd: options.budgetUsd }),
  });
}

/** True for a call that waits for a person's approval in the inbox. */
export function waitsForApproval(answer: ToolAnswer): answer is ToolAnswer & { status: 'parked'; inboxId: string } {
  return answer.status === 'parked' && answer.kind === 'approval' && answer.inboxId !== undefined;
}

/** Records the person's response as the inbox item's answer; an item answered already keeps its answer. */
export async function answerInInbox(gate: Gate, inboxId: string, response: PersonResponse): Promise<void> {
  const by = gate.options.by === undefined ? {} : { by: gate.options.by };
  try {
    if (response.approved) await gate.wardrik.inbox.approve(inboxId, by);
    else await gate.wardrik.inbox.deny(inboxId, { reason: response.reason ?? 'Denied in the app.', ...by });
  } catch (error) {
    // Answered already, in the inbox or by another resume: the inbox's answer stands.
    if (!(error instanceof ConflictError)) throw error;
  }
}
