import { toMicroUsd, toUsd } from '../money.js';
import type { CallRecord, RunSummary, TurnRecord, TurnStatus } from './store.js';

/** A run's sums while `summariseRuns` reads the calls and turns. */
interface RunSums {
  agent: string;
  status?: TurnStatus;
  calls: number;
  parked: number;
  costMicroUsd: number;
  firstAt: number;
  lastAt: number;
}

/**
 * `Store.listRuns` for the memory store: every run with calls or a turn (only `agent`'s when given), summed
 * from its calls and its turn, most recent activity first, at most `limit`. Reads everything: the memory
 * store is for tests, and no call's path lists runs.
 */
export function summariseRuns(
  calls: Iterable<CallRecord>,
  turns: Iterable<TurnRecord>,
  options: { readonly agent?: string; readonly limit?: number },
): RunSummary[] {
  const runs = new Map<string, RunSums>();
  const touch = (run: string, agent: string, first: number, last: number) => {
    let summary = runs.get(run);
    if (summary === undefined)
      runs.set(run, (summary = { agent, calls: 0, parked: 0, costMicroUsd: 0, firstAt: first, lastAt: last }));
    summary.firstAt = Math.min(summary.firstAt, first);
    summary.lastAt = Math.max(summary.lastAt, last);
    return summary;
  };
  for (const record of calls) {
    if (options.agent !== undefined && record.agent !== options.agent) continue;
    const summary = touch(record.run, record.agent, record.updatedAt, record.updatedAt);
    summary.calls++;
    if (record.state === 'parked') summary.parked++;
    summary.costMicroUsd += toMicroUsd(record.costUsd ?? 0);
  }
  for (const turn of turns) {
    if (options.agent !== undefined && turn.agent !== options.agent) continue;
    touch(turn.run, turn.agent, turn.createdAt, turn.updatedAt).status = turn.status;
  }
  return [...runs.entries()]
    .map(([run, { costMicroUsd, ...summary }]): RunSummary => ({ run, ...summary, costUsd: toUsd(costMicroUsd) }))
    .sort((a, b) => b.lastAt - a.lastAt || (a.run < b.run ? -1 : a.run > b.run ? 1 : 0))
    .slice(0, options.limit ?? Infinity);
}
