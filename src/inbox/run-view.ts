import type { StepData } from '../agent/messages.js';
import type { CallRecord, InboxRecord, StepRecord, Store, TurnRecord } from '../store/store.js';

/** What an agent turn keeps in `TurnRecord.data` (the agent loop's own JSON), as far as people read it. */
export interface TurnData {
  readonly input?: string;
  readonly model?: string;
  readonly text?: string;
  readonly spentUsd?: number;
  readonly steps?: number;
  readonly error?: string;
  readonly parked?: readonly {
    readonly inboxId: string;
    readonly call: string;
    readonly tool: string;
    readonly reason: string;
  }[];
}

/** A run's calls counted by state, and what it spent. */
export interface RunTotals {
  readonly calls: number;
  readonly succeeded: number;
  readonly failed: number;
  readonly parked: number;
  readonly running: number;
  readonly toolCostUsd: number;
  readonly modelCostUsd: number;
  /** What the turn spent in all; for a run of calls only, what its tools spent. */
  readonly spentUsd: number;
}

/** One run as a person looks into it (`wardrik show`, the inbox page): its turn, steps, calls, inbox items, labels, totals. */
export interface RunView {
  readonly run: string;
  readonly agent: string;
  readonly turn: TurnRecord | null;
  readonly steps: readonly StepRecord[];
  readonly calls: readonly CallRecord[];
  /** The run's inbox items, answered ones included. */
  readonly inbox: readonly InboxRecord[];
  readonly labels: readonly string[];
  readonly totals: RunTotals;
}

/** Reads a run from the store; `undefined` when it has neither a turn nor calls. */
export async function readRun(store: Store, run: string): Promise<RunView | undefined> {
  const [turn, steps, calls, labels, inbox] = await Promise.all([
    store.getTurn(run),
    store.listSteps(run),
    store.listCalls({ run }),
    store.getLabels(run),
    store.listInbox({ all: true }),
  ]);
  if (turn === undefined && calls.length === 0) return undefined;
  return {
    run,
    agent: turn?.agent ?? calls[0]!.agent,
    turn: turn ?? null,
    steps,
    calls,
    inbox: inbox.filter((item) => item.run === run),
    labels,
    totals: totalsOf(turn, steps, calls),
  };
}

function totalsOf(turn: TurnRecord | undefined, steps: readonly StepRecord[], calls: readonly CallRecord[]): RunTotals {
  const count = (state: CallRecord['state']): number => calls.filter((call) => call.state === state).length;
  const toolCostUsd = calls.reduce((sum, call) => sum + (call.costUsd ?? 0), 0);
  const modelCostUsd = steps.reduce(
    (sum, step) =>
      sum + ((step.data as StepData | null)?.kind === 'model' ? ((step.data as { usd?: number }).usd ?? 0) : 0),
    0,
  );
  const data = (turn?.data ?? {}) as TurnData;
  return {
    calls: calls.length,
    succeeded: count('succeeded'),
    failed: count('failed'),
    parked: count('parked'),
    running: count('started'),
    toolCostUsd,
    modelCostUsd,
    spentUsd: data.spentUsd ?? toolCostUsd + modelCostUsd,
  };
}
