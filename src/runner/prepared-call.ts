import type { Decision, PolicyRule } from '../policy/policy.js';
import type { CatalogEntry } from '../tools/catalog.js';
import type { CallReporter, Measure, ToolCaller } from '../tools/context.js';
import { errorAnswer, NO_LABELS, type EditedCall, type ToolAnswer } from '../tools/result.js';
import type { CallRef } from './call-failures.js';
import type { ResolvedArguments } from '../tools/value-table.js';

/** A call to run: who calls, in which run, and what the model asked for. */
export interface CallRequest {
  readonly agent: string;
  readonly run: string;
  readonly call: { readonly id: string; readonly name: string; readonly arguments?: unknown };
  /** The agent's budget in US dollars: at or over it, no call starts. */
  readonly budgetUsd?: number;
  /** The agent's own rules, applied with the global ones (the most restrictive wins). */
  readonly policy?: readonly PolicyRule[];
  /** Patterns of the tools this caller may use, such as `orders/*`; all when absent. */
  readonly tools?: readonly string[];
  /** Stops the call: its tool's signal aborts and the call answers `aborted`. */
  readonly signal?: AbortSignal;
  /** The key the tool sees as `ctx.idempotencyKey`; `run:call` unless given. */
  readonly idempotencyKey?: string;
  /** Where the tool's `ctx.progress` and `ctx.log` go (an MCP client's session); nowhere when absent. */
  readonly reporter?: CallReporter;
  /** Who called, for the tool's `ctx.caller`: set by the MCP server and agents; `{ door: 'app' }` when absent. */
  readonly caller?: ToolCaller;
  /**
   * The person the call is made for (an agent's `onBehalfOf`); the caller's `principal` when absent. An
   * approval it asks for records them as `requester`, and a rule's `separateFrom` keeps them from answering.
   */
  readonly onBehalfOf?: string;
  /** The most calls of each tool matching a pattern in this run, such as `{ 'orders/refund_order': 3 }`. */
  readonly maxCalls?: Readonly<Record<string, number>>;
  /**
   * Earlier turns of the conversation whose labels the run started with (their text is in the prompt):
   * an approval the call asks for names them.
   */
  readonly earlierTurns?: readonly { readonly run: string; readonly labels: readonly string[] }[];
  /**
   * @internal Under the run-level rule, an agent's call whose model reads tools these untrusted MCP servers wrote:
   * the run carries `outside` from its start, and an approval the call asks for says why.
   */
  readonly outsideTools?: readonly string[];
  /**
   * @internal With `labels: 'values'`, an agent's call: its arguments were resolved from the run's held values
   * (`call.arguments` is `resolved.args`), and `steered` holds the labels of outside data the model read in
   * clear. The call's labels are then theirs, not the whole run's (see `valueLabelsOf` in decide.ts).
   */
  readonly values?: { readonly resolved: ResolvedArguments; readonly steered: readonly string[] };
}

/** A call that passed resolution and checking, ready to run (now, or once approved). */
export interface PreparedCall {
  readonly agent: string;
  readonly run: string;
  readonly call: string;
  /** The tool as policies name it, `toolset/tool`. */
  readonly tool: string;
  readonly entry: CatalogEntry;
  /** The checked arguments the tool receives (a DTO instance for DTO tools). */
  readonly args: unknown;
  /** The arguments as sent, kept in the journal and the inbox. */
  readonly arguments: unknown;
  readonly idempotencyKey: string;
  readonly labels: readonly string[];
  /** With `labels: 'values'`, the call's own labels: its inbox item carries them, and a run grant compares them. */
  readonly valueLabels?: readonly string[] | undefined;
  readonly budgetUsd: number | undefined;
  readonly signal?: AbortSignal | undefined;
  readonly reporter?: CallReporter | undefined;
  readonly caller: ToolCaller;
  /** The person the call is made for, recorded on the inbox item it parks as (see `CallRequest.onBehalfOf`). */
  readonly requester?: string | undefined;
  /**
   * What the tool reported spending on this call so far in micro-dollars (kept in its journal entry),
   * whether an attempt ran here (its cost is then known), and its measures.
   */
  /** What the call spent; `account`: the budget's account its hold is in, which its spend is added to too. */
  readonly spent: { microUsd: number; ran?: boolean; measures?: Measure[]; account?: string };
  /** The policy's decision for a new call, announced once its first journal write shows it is new. */
  readonly decision?: Decision;
  /** What decided it, kept in its journal entry (`CallRecord.decidedBy`): the decision's rule, or what the journal had. */
  readonly decidedBy: string | undefined;
  /** A person approved it with other arguments: its answer says so. */
  readonly edited?: EditedCall | undefined;
}

/**
 * What a call's attempts came to: the answer, the attempt that gave it, and whether the call was lost
 * meanwhile (another node changed its journal entry: the answer is then what that node recorded).
 */
export interface Tried {
  readonly answer: ToolAnswer;
  readonly attempt: number;
  readonly lost?: boolean;
}

/** What `prepareCall` needs: a call's fields, with the tool resolved and the arguments checked. */
export interface CallFields {
  readonly agent: string;
  readonly run: string;
  readonly call: string;
  readonly entry: CatalogEntry;
  readonly args: unknown;
  readonly arguments: unknown;
  /** `run:call` when absent. */
  readonly idempotencyKey?: string | undefined;
  readonly labels: readonly string[];
  readonly valueLabels?: readonly string[] | undefined;
  readonly budgetUsd?: number | undefined;
  readonly signal?: AbortSignal | undefined;
  readonly reporter?: CallReporter | undefined;
  /** `{ door: 'resumed' }` when absent: a call run after its request is gone. */
  readonly caller?: ToolCaller | undefined;
  readonly requester?: string | undefined;
  /** What the journal says the call spent in earlier attempts (a call taken over). */
  readonly spentMicroUsd?: number;
  readonly decision?: Decision | undefined;
  /** What decided a call not decided here (taken over, approved): its journal entry's, with the person's answer. */
  readonly decidedBy?: string | undefined;
  readonly edited?: EditedCall | undefined;
}

const RESUMED: ToolCaller = Object.freeze({ door: 'resumed' });
const FROM_APP: ToolCaller = Object.freeze({ door: 'app' });

/** The caller of a new call: the request's, else the app's code. */
export function callerOf(request: CallRequest): ToolCaller {
  return request.caller ?? FROM_APP;
}

/** The person a call is made for: the request's `onBehalfOf`, else the principal its door's auth established. */
export function requesterOf(request: CallRequest): string | undefined {
  return request.onBehalfOf ?? request.caller?.principal;
}

/** The one place a prepared call is made: every field in one literal, so each call has the same shape. */
export function prepareCall(f: CallFields): PreparedCall {
  return {
    agent: f.agent,
    run: f.run,
    call: f.call,
    tool: f.entry.ref,
    entry: f.entry,
    args: f.args,
    arguments: f.arguments,
    idempotencyKey: f.idempotencyKey ?? `${f.run}:${f.call}`,
    labels: f.labels,
    valueLabels: f.valueLabels,
    budgetUsd: f.budgetUsd,
    signal: f.signal,
    reporter: f.reporter,
    caller: f.caller ?? RESUMED,
    requester: f.requester,
    spent: { microUsd: f.spentMicroUsd ?? 0 },
    decision: f.decision,
    decidedBy: f.decidedBy ?? f.decision?.rule,
    edited: f.edited,
  };
}

export type Outcome = { readonly returned: unknown } | { readonly threw: unknown };

export const IN_DOUBT =
  'Wardrik stopped while this call was running, so it may or may not have happened. Say whether it did: ' +
  'inbox.answer(id, { happened: true, result }) records its result, { happened: false } runs it now, or deny it.';

export const NO_RESOURCES: readonly string[] = Object.freeze([]);

export function includesAll(have: readonly string[], wanted: readonly string[]): boolean {
  for (let i = 0; i < wanted.length; i++) if (!have.includes(wanted[i]!)) return false;
  return true;
}

/** Just the call's reference fields, for an event (a prepared call carries much more). */
export function ref(call: CallRef): CallRef {
  return { agent: call.agent, run: call.run, call: call.call, tool: call.tool };
}

export type Mutable<T> = { -readonly [K in keyof T]: T[K] };

export function callKey(run: string, call: string): string {
  return `${run}\u0000${call}`;
}

export function stoppedAnswer(p: PreparedCall): ToolAnswer {
  return errorAnswer(
    'aborted',
    `The call to "${p.entry.name}" was stopped before it finished.`,
    p.entry.tool.annotations.labels ?? NO_LABELS,
  );
}

export function deniedAnswer(rule: string): ToolAnswer {
  return errorAnswer(
    'denied',
    `The policy does not allow this call (${rule}); it did not run. Do not retry it; tell the user it needs a person or a different approach.`,
  );
}

/**
 * Fail closed: a decision whose action is none of the three (a Policy registered under `Tokens.Policy`
 * that answers anything) denies. `never` makes the compiler say so when an action is added.
 */
export function unknownActionAnswer(action: never, rule: string): ToolAnswer {
  const message = `The policy decided ${JSON.stringify(String(action)).slice(0, 80)} (${rule}), which is not an action; it did not run. Tell the user it needs a person.`;
  return errorAnswer('denied', message);
}

export function budgetAnswer(budgetUsd: number): ToolAnswer {
  return errorAnswer(
    'budget_spent',
    `The agent's budget of $${budgetUsd} is spent, so this call did not run. Finish with what you have.`,
  );
}

export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    value !== null &&
    (typeof value === 'object' || typeof value === 'function') &&
    typeof (value as PromiseLike<unknown>).then === 'function'
  );
}

/** Which untrusted servers' tools gave the run its `outside` label, for an approval's reason. */
export function fromOutsideTools(servers: CallRequest['outsideTools']): string {
  if (servers === undefined || servers.length === 0) return '';
  const named = servers.map((server) => `"${server}"`).join(', ');
  return ` The run carries "outside" from its start: its model reads the tools of MCP server ${named}, not marked trusted, whose names, descriptions and schemas the server wrote. Mark a server whose tool list a person read \`reviewed: true\`, or one you trust \`trusted: true\`.`;
}

/** Which earlier turns of the conversation the run's labels came from, for an approval's reason. */
export function fromEarlierTurns(earlier: CallRequest['earlierTurns']): string {
  if (earlier === undefined || earlier.length === 0) return '';
  const turns = earlier.map(
    (turn) => `${turn.labels.map((label) => `"${label}"`).join(', ')} from earlier turn ${turn.run}`,
  );
  return ` The run carries labels of earlier turns whose text is in this turn's prompt: ${turns.join('; ')}.`;
}
