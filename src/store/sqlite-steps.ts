import { encodeJson } from './sql-rows.js';
import type { SqliteStatements } from './sqlite-statements.js';
import type { StepRecord } from './store.js';

/** A step's index is the low 32 bits of its row (migration 9). */
const MAX_STEP_INDEX = 2 ** 32 - 1;

/**
 * Appends a step in the SQLite store's transaction (false: its index was taken). A run is numbered with
 * its first step, and step `idx` is row `(no << 32) + idx` (migration 9): a run's steps are one range of
 * rows, appended at the end of a rowid table, about one page a commit.
 */
export function appendStepRow(sql: SqliteStatements, step: StepRecord): boolean {
  const { run, index } = step;
  if (!Number.isInteger(index) || index < 0 || index > MAX_STEP_INDEX) {
    throw new RangeError(`step index ${index} of run "${run}" is not an integer from 0 to ${MAX_STEP_INDEX}`);
  }
  const data = encodeJson(step.data);
  // A run's first step is almost always its step 0: numbered first, it is one insert, not a failed one and another.
  if (index === 0) sql.numberRun.run(run);
  if (sql.appendStep.run(index, data, step.createdAt, run).changes === 1) return true;
  // Nothing inserted: the run's first step (it has no number yet), or the index was taken.
  if (sql.numberRun.run(run).changes === 0) return false;
  return sql.appendStep.run(index, data, step.createdAt, run).changes === 1;
}
