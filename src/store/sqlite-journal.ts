import type { BatchOutcome } from './group-commit.js';
import type { SqliteDatabase } from './sqlite-connection.js';
import type { SqliteStatements } from './sqlite-statements.js';
import type { JournalWrite } from './store.js';

/**
 * Keeps wardrik_started_runs (migration 10) right after a batch's writes, in the batch's transaction:
 * each run's count of calls in `started` changes by the batch's net change, and a run left with none
 * loses its row. A turn's commit answers one call and starts the next, a net change of nothing, so it
 * writes no count at all: only a turn's first and last commits do (the page calls_waiting cost every
 * commit before).
 */
function countStarted(sql: SqliteStatements, writes: readonly JournalWrite[], results: readonly boolean[]): void {
  let changes: Map<string, number> | undefined;
  for (let i = 0; i < writes.length; i++) {
    const write = writes[i]!;
    if (!('call' in write) || !results[i]) continue;
    const change = (write.call.state === 'started' ? 1 : 0) - (write.expected === 'started' ? 1 : 0);
    if (change === 0) continue;
    changes ??= new Map();
    changes.set(write.call.run, (changes.get(write.call.run) ?? 0) + change);
  }
  if (changes === undefined) return;
  for (const [run, change] of changes) {
    if (change === 0) continue;
    sql.countStarted.run(run, change);
    if (change < 0) sql.dropStarted.run(run);
  }
}

/** A batch that threw in the shared transaction: the transaction is rolled back and made again with savepoints. */
class BatchFailed extends Error {
  constructor(override readonly cause: unknown) {
    super('a batch failed');
  }
}

/**
 * The commit of a SQLite store's journal batches (`GroupCommit`): one transaction for all the batches
 * handed in together. Each batch must stand alone, so that one which fails is undone alone and answered
 * with its error while the others commit: each in a savepoint of its own. A savepoint costs two more
 * statements a batch, and batches almost never fail, so the transaction is first made without them;
 * only when a batch throws is it rolled back and made again with a savepoint each. An error that ends
 * the whole transaction (a full disk, a failed commit) fails every batch in it: nothing of it was kept.
 */
export function sqliteJournalCommit(
  db: SqliteDatabase,
  sql: SqliteStatements,
  write: (write: JournalWrite) => boolean,
  failure: (error: unknown) => Error,
): (batches: readonly (readonly JournalWrite[])[]) => BatchOutcome<boolean>[] {
  const writeAll = (writes: readonly JournalWrite[]): boolean[] => {
    const results = writes.map(write);
    countStarted(sql, writes, results);
    return results;
  };
  const one = db.transaction(writeAll);
  const together = db.transaction((batches: readonly (readonly JournalWrite[])[]) =>
    batches.map((writes): BatchOutcome<boolean> => {
      try {
        return { results: writeAll(writes) };
      } catch (error) {
        throw new BatchFailed(error);
      }
    }),
  );
  // A nested transaction is a savepoint.
  const apart = db.transaction((batches: readonly (readonly JournalWrite[])[]) =>
    batches.map((writes): BatchOutcome<boolean> => {
      try {
        return { results: one(writes) };
      } catch (error) {
        if (!db.inTransaction) throw error;
        return { error: failure(error) };
      }
    }),
  );
  return (batches) => {
    if (batches.length === 1) return [{ results: one(batches[0]!) }];
    try {
      return together(batches);
    } catch (error) {
      if (!(error instanceof BatchFailed)) throw error;
      return apart(batches);
    }
  };
}
