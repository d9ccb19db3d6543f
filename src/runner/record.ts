import type { CallRecord, CallState } from '../store/store.js';
import type { ToolAnswer } from '../tools/result.js';
import { isRepeatable } from '../tools/tool.js';
import type { CallDeps } from './call-deps.js';
import { answerNotJournaled } from './call-failures.js';
import { includesAll, type PreparedCall } from './prepared-call.js';

/**
 * Stage 5, record: the call's answer is journaled (or the call parked, when its tool asked for a
 * person), the labels it brought are added to its run, and whoever listens hears how it settled. A
 * store that fails here fails the call as one that ran: its effect may have happened.
 */
export async function record(
  deps: CallDeps,
  p: PreparedCall,
  answer: ToolAnswer,
  attempt: number,
  expected: CallState | undefined,
): Promise<ToolAnswer> {
  const { journal, outcomes } = deps;
  let written: CallRecord;
  try {
    // A new call of an agent's turn: its answer, and the labels it brought, are committed with the turn's next write (see JournalBatch).
    const batch = expected === undefined && answer.status !== 'parked' ? journal.batchOf(p.run) : undefined;
    // Labels the run had when the call started need no store write (every MCP answer carries `outside`).
    // Guard (labels-kept): the labels an answer brings stay with its run.
    if (!includesAll(p.labels, answer.labels)) {
      if (batch !== undefined) outcomes.holdLabels(p, p.labels, answer.labels, batch);
      else await outcomes.addLabels(p, answer.labels);
    }
    if (answer.status === 'parked')
      return await deps.parked.park(p, answer.kind, answer.reason, 'started', answer.labels, answer.detail);
    written = journal.recordOf(p, answer.status === 'ok' ? 'succeeded' : 'failed', attempt, answer);
    if (batch !== undefined) batch.hold({ call: written, expected: 'started' }, isRepeatable(p.entry.tool));
    else if (!(await journal.writeCall(written, 'started'))) return await journal.journaledAnswer(p.run, p.call);
  } catch (error) {
    throw answerNotJournaled(p, 'write its answer to the journal', error);
  }
  outcomes.settled(p, answer, written.attempt, p.spent.measures, p.spent.microUsd, expected === 'parked');
  return answer;
}
