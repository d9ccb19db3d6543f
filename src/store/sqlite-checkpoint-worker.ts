import { workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

// The thread of a SQLite store's checkpoints (sqlite-checkpoints.ts): its own connection to the store's
// file, moving the write-ahead log into the file every `everyMs`. PASSIVE: it copies what no reader
// still needs and never waits for, nor holds up, the store's writer. A failure is left alone: the
// store's own connection checkpoints too, at a larger mark, when this thread falls behind.

const { path, synchronous, everyMs } = workerData as { path: string; synchronous: 'NORMAL' | 'FULL'; everyMs: number };
const db = new Database(path, { fileMustExist: true, timeout: 0 });
db.pragma(`synchronous = ${synchronous}`);
setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // The store's connection checkpoints at its own mark.
  }
}, everyMs);
