import type Database from 'better-sqlite3';
import type { BatchOutcome } from './group-commit.js';
import type { JournalWrite } from './store.js';

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
  db: Database.Database,
  write: (write: JournalWrite) => boolean,
  failure: (error: unknown) => Error,
): (batches: readonly (readonly JournalWrite[])[]) => BatchOutcome<boolean>[] {
  const one = db.transaction((writes: readonly JournalWrite[]) => writes.map(write));
  const together = db.transaction((batches: readonly (readonly JournalWrite[])[]) =>
    batches.map((writes): BatchOutcome<boolean> => {
      try {
        return { results: writes.map(write) };
      } catch (error) {
        throw new BatchFailed(error);
      }
    }),
  );
  // A nested better-sqlite3 transaction is a savepoint.
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
