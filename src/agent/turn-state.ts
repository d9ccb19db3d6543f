import type {
  LanguageModelV3FunctionTool,
  LanguageModelV3Message,
  LanguageModelV3ProviderTool,
} from '@ai-sdk/provider';
import type { LanguageModel } from './language-model.js';
import type { JournalBatch } from '../runner/journal-batch.js';
import type { TurnRecord, TurnStatus } from '../store/store.js';
import type { TurnOutcome, TurnResult } from './agent.js';
import type { StepData } from './messages.js';
import type { CatalogEntry } from '../tools/catalog.js';
import type { AgentOptions } from './options.js';
import type { ModelPrice } from './pricing.js';
import type { ProviderSearch } from './provider-search.js';
import type { TraceSpan } from './tracing.js';
import type { ToolRef } from '../tools/tool-origin.js';
import { turnDataOf, type EarlierTurn } from './turn-data.js';
import type { ValueTable, ValueTableSnapshot } from '../tools/value-table.js';

/** A tool as the model is sent it: a function of the catalog's, or the provider's own tool search. */
export type ModelTool = LanguageModelV3FunctionTool | LanguageModelV3ProviderTool;

/** An agent as the service keeps it: its checked options and how to reach its model. */
export interface Runtime {
  readonly id: string;
  readonly options: AgentOptions;
  /** `provider:model` */
  readonly spec: string;
  readonly provider: string;
  readonly modelId: string;
  readonly model: () => Promise<LanguageModel>;
  readonly price: ModelPrice | undefined;
  readonly maxSteps: number;
  readonly historyTurns: number;
  /** The provider's tool search, with `toolSearch: 'provider'`; else undefined (Wardrik's own, if deferred). */
  readonly search: ProviderSearch | undefined;
  /** Finished turns, oldest first, loaded from the store on first use and kept up to date. */
  history: Promise<HistoryEntry[]> | undefined;
}

/** A finished turn as the conversation keeps it. */
export interface HistoryEntry {
  readonly run: string;
  readonly finishedAt: number;
  readonly messages: readonly LanguageModelV3Message[];
  /** The labels of what the turn read (its calls' answers): a turn that has its text in the prompt carries them. */
  readonly labels: readonly string[];
  /** With `labels: 'values'`, the outside values the turn held (its steps' snapshots merged); else undefined. */
  readonly values: ValueTableSnapshot | undefined;
}

/** A turn being driven in this process. */
export interface LiveTurn {
  readonly rt: Runtime;
  readonly run: string;
  record: TurnRecord;
  readonly input: string;
  /** The prompt, grown in place: earlier turns, this turn's user text, then each step. Never re-scanned. */
  readonly prompt: LanguageModelV3Message[];
  readonly steps: StepData[];
  modelSteps: number;
  /** How long the model took for the last step, for `model.called`. */
  modelMs: number;
  text: string;
  spentUsd: number;
  /** The budget's account the model call under way holds in (a period's), which its spend is added to too. */
  spendAccount?: string | undefined;
  /** The tools sent to the model; a search adds what it loads (see `DeferredTools`). */
  readonly tools: ModelTool[];
  readonly readOnly: Set<string>;
  readonly refs: Map<string, ToolRef>;
  /** Deferred tools by model name, loaded only by the search tool; empty without `deferred`. */
  readonly deferred: ReadonlyMap<string, CatalogEntry>;
  /** What the runner lets the turn call: the agent's patterns and each tool a search loaded. */
  readonly callable: string[];
  /** The untrusted MCP servers whose tools the model reads (their names, descriptions and schemas are outside text). */
  readonly outsideServers: readonly string[];
  readonly signal: AbortSignal;
  readonly span: TraceSpan;
  /** The earlier turns whose labels the run started with, named in approvals. */
  readonly earlier: readonly EarlierTurn[];
  /**
   * Calls under way by call id, told when their tool starts waiting for a person (an MCP server's
   * question): the turn then parks on it rather than waiting in flight (see `TurnToolCalls`).
   */
  readonly waitingForPerson: Map<string, (inboxId: string, reason: string) => void>;
  /** The turn's journal writes not committed yet: each rides with the run's next write (see `JournalBatch`). */
  readonly journal: JournalBatch;
  /**
   * The labels this turn's calls' answers carried, when all of them were seen here (a turn begun in this
   * process); undefined for a turn taken up from its journal, whose earlier answers only the store has.
   */
  readonly labelsRead: Set<string> | undefined;
  /**
   * With `labels: 'values'`, the run's held outside values: those of the earlier turns in the prompt and
   * this turn's steps (the model sees their handles); undefined under the run-level rule.
   */
  readonly values: ValueTable | undefined;
  /** How many values `values` held when the turn began: what the turn itself held comes after. */
  readonly valuesFrom: number;
}

/** Turn states after which nothing more happens. */
export const TERMINAL: ReadonlySet<TurnStatus> = new Set(['done', 'failed', 'budget_spent']);

/** The runner's call id for a model's tool call: unique in the run even if a model reuses ids across steps. */
export function callId(stepIndex: number, modelCallId: string): string {
  return `${stepIndex}.${modelCallId}`;
}

/** How many prompt messages belong to the turn itself (its user text and its steps). */
export function turnLength(d: LiveTurn): number {
  return 1 + d.steps.length;
}

/** A turn record as `send` and `result` return it. */
export function resultOf(turn: TurnRecord): TurnResult {
  const data = turnDataOf(turn);
  const status: TurnOutcome = turn.status === 'running' ? 'failed' : turn.status;
  return {
    run: turn.run,
    agent: turn.agent,
    status,
    text: data.text,
    parked: data.parked,
    spentUsd: data.spentUsd,
    steps: data.steps,
    ...(data.error === undefined ? {} : { error: data.error }),
  };
}
