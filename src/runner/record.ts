import type { CallState } from '../store/store.js';
import type { ToolAnswer } from '../tools/result.js';
import { isRepeatable } from '../tools/tool.js';
import type { CallDeps } from './call-deps.js';
import { answerNotJournaled } from './call-failures.js';
import type { JournalBatch } from './journal-batch.js';
import { includesAll, type PreparedCall } from './prepared-call.js';
import { then, type Maybe } from './maybe.js';

/**
 * Stage 5, record: the call's answer is journaled (or the call parked, when its tool asked for a
 * person), the labels it brought are added to its run, and whoever listens hears how it settled. A
 * store that fails here fails the call as one that ran: its effect may have happened.
 */
export function record(
  deps: CallDeps,
  p: PreparedCall,
  answer: ToolAnswer,
  attempt: number,
  expected: CallState | undefined,
): Maybe<ToolAnswer> {
  const { journal, outcomes } = deps;
  const failed = notJournaled(p);
  try {
    // A new call of an agent's turn: its answer, and the labels it brought, are committed with the turn's next write (see JournalBatch).
    const batch = expected === undefined && answer.status !== 'parked' ? journal.batchOf(p.run) : undefined;
    // Guard (labels-kept): the labels an answer brings stay with its run.
    if (!includesAll(p.labels, answer.labels)) {
      // Labels the run had when the call started need no store write (every MCP answer carries `outside`).
      if (batch === undefined)
        return outcomes
          .addLabels(p, answer.labels)
          .then(() => written(deps, p, answer, attempt, expected, undefined), failed);
      outcomes.holdLabels(p, p.labels, answer.labels, batch);
    }
    return written(deps, p, answer, attempt, expected, batch);
  } catch (error) {
    return failed(error);
  }
}

/** The answer's journal write (held in the run's batch, or committed now), then the call settles. */
function written(
  deps: CallDeps,
  p: PreparedCall,
  answer: ToolAnswer,
  attempt: number,
  expected: CallState | undefined,
  batch: JournalBatch | undefined,
): Maybe<ToolAnswer> {
  const { journal, outcomes } = deps;
  const failed = notJournaled(p);
  try {
    if (answer.status === 'parked')
      return deps.parked.park(p, answer.kind, answer.reason, 'started', answer.labels, answer.detail).catch(failed);
    const entry = journal.recordOf(p, answer.status === 'ok' ? 'succeeded' : 'failed', attempt, answer);
    const settle = (): ToolAnswer => {
      outcomes.settled(p, answer, entry.attempt, p.spent.measures, p.spent.microUsd, expected === 'parked');
      return answer;
    };
    if (batch !== undefined) {
      batch.hold({ call: entry, expected: 'started' }, isRepeatable(p.entry.tool));
      return settle();
    }
    const writing = then(journal.writeCall(entry, 'started'), (won) =>
      won ? settle() : journal.journaledAnswer(p.run, p.call),
    );
    return writing instanceof Promise ? writing.catch(failed) : writing;
  } catch (error) {
    return failed(error);
  }
}

/** A store that fails here fails the call as one that ran: its effect may have happened. */
function notJournaled(p: PreparedCall): (error: unknown) => never {
  return (error) => {
    throw answerNotJournaled(p, 'write its answer to the journal', error);
  };
}
