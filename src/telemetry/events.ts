import type { LogLevel, Measure } from '../tools/context.js';
import type { InboxKind } from '../store/store.js';
import type { RecoveryReport } from '../runner/recovery-report.js';

/**
 * Every event Wardrik emits on `events$`. Each has a `type` and a `time` (milliseconds since the epoch),
 * and carries `agent`, `run` and `call` where they apply. Types are dotted lowercase and stable.
 */

/** What every event about one tool call carries. */
export interface CallEventBase {
  readonly agent: string;
  readonly run: string;
  readonly call: string;
  /** The tool as policies name it: `orders/refund_order`. */
  readonly tool: string;
  readonly time: number;
}

/** A tool was left out at registration; `reason` says why and how to fix it. */
export interface ToolSkippedEvent {
  readonly type: 'tool.skipped';
  readonly toolset: string;
  readonly tool: string;
  readonly reason: string;
  readonly time: number;
}

/** Something a developer should know, such as a safety rule switched off. */
export interface WarningEvent {
  readonly type: 'warning';
  readonly message: string;
  readonly time: number;
}

export interface ToolCalledEvent extends CallEventBase {
  readonly type: 'tool.called';
}

/** The policy decision for a call and the rule that made it. */
export interface ToolDecidedEvent extends CallEventBase {
  readonly type: 'tool.decided';
  readonly decision: 'allow' | 'ask' | 'deny';
  /** Which rule decided, such as `rule 2 (orders/refund_* ask)` or `default: read-only`. */
  readonly rule: string;
}

export interface ToolSucceededEvent extends CallEventBase {
  readonly type: 'tool.succeeded';
  readonly attempts: number;
  readonly labels: readonly string[];
  /** What the tool recorded with `ctx.measure(unit, amount)` (other than `usd`, a cost), when it did. */
  readonly measures?: readonly Measure[];
}

export interface ToolFailedEvent extends CallEventBase {
  readonly type: 'tool.failed';
  readonly code: string;
  readonly message: string;
  readonly attempts: number;
  /** What the tool recorded with `ctx.measure(unit, amount)` before it failed, when it did. */
  readonly measures?: readonly Measure[];
}

/** A repeatable call failed transiently and will run again after `delayMs`. */
export interface ToolRetryingEvent extends CallEventBase {
  readonly type: 'tool.retrying';
  /** The attempt that comes next. */
  readonly attempt: number;
  readonly delayMs: number;
  readonly reason: string;
}

/** The call waits for a person in the inbox. */
export interface ToolParkedEvent extends CallEventBase {
  readonly type: 'tool.parked';
  readonly inboxId: string;
  /** `question`: an MCP server asks a person during the call, which waits meanwhile. */
  readonly kind: 'approval' | 'park' | 'in_doubt' | 'tool_change' | 'question';
  readonly reason: string;
}

/** A person answered a parked call. */
export interface ToolAnsweredEvent extends CallEventBase {
  readonly type: 'tool.answered';
  readonly inboxId: string;
  readonly answer: 'approved' | 'denied' | 'answered';
  readonly by?: string;
  /** The person approved with other arguments than the call was sent with. */
  readonly edited?: boolean;
  /** The approval also lets later calls of the tool in this run go (`scope: 'run'`). */
  readonly scope?: 'run';
  /**
   * For an item that needs a `quorum`: how many people have approved its arguments so far. Below
   * `quorum`, the item still waits and nothing ran.
   */
  readonly approvals?: number;
  readonly quorum?: number;
}

/** A parked call has waited `escalateAfterMs` without an answer: tell someone else. */
export interface InboxEscalatedEvent extends CallEventBase {
  readonly type: 'inbox.escalated';
  readonly inboxId: string;
  readonly kind: InboxKind;
  readonly waitedMs: number;
}

/**
 * The `inboxWeb` webhook refused a message about a waiting item for good (a 4xx other than 408 and 429):
 * it is not sent again, so nobody may have heard of the item. `reason` says what to fix.
 */
export interface NotifyFailedEvent extends CallEventBase {
  readonly type: 'notify.failed';
  readonly inboxId: string;
  /** Which message: the item started waiting, or it was escalated. */
  readonly notification: 'inbox.waiting' | 'inbox.escalated';
  /** The receiver's HTTP status. */
  readonly status: number;
  readonly reason: string;
}

/** The run now carries these labels, new from this call. */
export interface LabelAddedEvent extends CallEventBase {
  readonly type: 'label.added';
  readonly labels: readonly string[];
}

/** Money spent: `usd` now, `totalUsd` the agent's running total. */
export interface CostEvent {
  readonly type: 'cost';
  readonly agent: string;
  readonly run: string;
  readonly call?: string;
  readonly source: 'tool' | 'model';
  readonly usd: number;
  readonly totalUsd: number;
  /** The running total exactly, in integer micro-dollars (millionths of a dollar), as the store keeps it. */
  readonly totalMicroUsd: number;
  /** The agent's budget (`budgetUsd`), when it has one. */
  readonly budgetUsd?: number;
  readonly time: number;
}

/**
 * An agent's spend in a period (`period`: `'2026-12-04'`, `'2026-12'`, or `'life'` for a whole-life
 * budget) reached `warnAt` of its budget: emitted once a period, by one node.
 */
export interface BudgetWarningEvent {
  readonly type: 'budget.warning';
  readonly agent: string;
  readonly period: string;
  readonly spentUsd: number;
  readonly limitUsd: number;
  readonly warnAt: number;
  readonly time: number;
}

/** A toolset's tools changed; `count` is how many it offers now (0 while its MCP server is down). */
export interface ToolsChangedEvent {
  readonly type: 'tools.changed';
  /** The toolset: an MCP server's name, or the toolset `wardrik.tool` added to (`workers`). */
  readonly toolset: string;
  /** The MCP hub and server, when the toolset is an MCP server's. */
  readonly mcp?: string;
  readonly server?: string;
  readonly count: number;
  readonly time: number;
}

/**
 * An MCP tool's definition (description, schemas, annotations, title) is not the pinned one:
 * `accepted` when it was pinned at once (a trusted server), else its calls ask a person until one accepts it.
 */
export interface ToolChangedEvent {
  readonly type: 'tool.changed';
  readonly mcp: string;
  readonly server: string;
  readonly tool: string;
  /** What changed, in words, such as `description changed`. */
  readonly changes: readonly string[];
  readonly accepted: boolean;
  readonly time: number;
}

/** An agent turn began (`agent.send`); `run` is its id in every later event and tool context. */
export interface RunStartedEvent {
  readonly type: 'run.started';
  readonly agent: string;
  readonly run: string;
  /** `provider:model` */
  readonly model: string;
  readonly time: number;
}

/** A turn waits for people: `inboxIds` are the parked calls' inbox items. */
export interface RunParkedEvent {
  readonly type: 'run.parked';
  readonly agent: string;
  readonly run: string;
  readonly inboxIds: readonly string[];
  readonly time: number;
}

/** A turn goes on: its parked calls were answered, or a node took over a turn a crash left running. */
export interface RunResumedEvent {
  readonly type: 'run.resumed';
  readonly agent: string;
  readonly run: string;
  readonly reason: 'answered' | 'recovered';
  readonly time: number;
}

/** A turn ended: `done`, `failed` (see `error`) or `budget_spent`. */
export interface RunFinishedEvent {
  readonly type: 'run.finished';
  readonly agent: string;
  readonly run: string;
  readonly status: 'done' | 'failed' | 'budget_spent';
  /** Model steps the turn took. */
  readonly steps: number;
  /** What this turn spent (its model steps and its tools' costs). */
  readonly spentUsd: number;
  readonly error?: string;
  readonly time: number;
}

/** A model answered one step of a turn. */
export interface ModelCalledEvent {
  readonly type: 'model.called';
  readonly agent: string;
  readonly run: string;
  /** `provider:model` */
  readonly model: string;
  /** The model step in the turn: 1, 2 … */
  readonly step: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly usd: number;
  readonly finishReason: string;
  readonly toolCalls: number;
  /** How long the model took to answer this step. */
  readonly durationMs: number;
  readonly time: number;
}

/** A model call failed; `message` says why and what to do. */
export interface ModelFailedEvent {
  readonly type: 'model.failed';
  readonly agent: string;
  readonly run: string;
  readonly model: string;
  readonly step: number;
  readonly message: string;
  /** The provider's HTTP status, when there was one. */
  readonly status?: number;
  /** The attempt that failed; a retryable failure is tried again up to the configured attempts. */
  readonly attempt: number;
  /** How long the attempt took before it failed. */
  readonly durationMs: number;
  readonly time: number;
}

/** A tool reported how far it has come, with `ctx.progress(progress, total?, message?)`. */
export interface ToolProgressEvent extends CallEventBase {
  readonly type: 'tool.progress';
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

/** A tool logged a message for its caller, with `ctx.log(level, data)`. */
export interface ToolLogEvent extends CallEventBase {
  readonly type: 'tool.log';
  readonly level: LogLevel;
  readonly data: unknown;
}

/** A recovery pass ended on this node (`recoverMs`, or `wardrik.recover()`), with what it found. */
export interface RecoveryFinishedEvent {
  readonly type: 'recovery.finished';
  readonly durationMs: number;
  /** The pass's report; absent when it failed. */
  readonly report?: RecoveryReport;
  /** Why the pass failed, when it did; the next one tries again. */
  readonly error?: string;
  readonly time: number;
}

export type WardrikEvent =
  | RunStartedEvent
  | RunParkedEvent
  | RunResumedEvent
  | RunFinishedEvent
  | ModelCalledEvent
  | ModelFailedEvent
  | ToolSkippedEvent
  | WarningEvent
  | ToolCalledEvent
  | ToolDecidedEvent
  | ToolSucceededEvent
  | ToolFailedEvent
  | ToolRetryingEvent
  | ToolParkedEvent
  | ToolAnsweredEvent
  | InboxEscalatedEvent
  | NotifyFailedEvent
  | LabelAddedEvent
  | CostEvent
  | BudgetWarningEvent
  | ToolsChangedEvent
  | ToolChangedEvent
  | ToolProgressEvent
  | ToolLogEvent
  | RecoveryFinishedEvent;

/** An event as code emits it; the bus stamps the time. */
export type EventInput = WardrikEvent extends infer E ? (E extends WardrikEvent ? Omit<E, 'time'> : never) : never;
