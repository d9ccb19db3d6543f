import { workerData } from 'node:worker_threads';
import type { SqliteDriver } from './sqlite-connection.js';
import { openSqliteDatabase } from './sqlite-driver.js';

// The thread of a SQLite store's checkpoints (sqlite-checkpoints.ts): its own connection to the store's
// file, through the store's driver, moving the write-ahead log into the file every `everyMs`. PASSIVE: it
// copies what no reader still needs and never waits for, nor holds up, the store's writer. A failure is
// left alone: the store's own connection checkpoints too, at a larger mark, when this thread falls behind.

const { path, synchronous, everyMs, driver } = workerData as {
  path: string;
  synchronous: 'NORMAL' | 'FULL';
  everyMs: number;
  driver: SqliteDriver;
};
const db = openSqliteDatabase(path, { readonly: false, timeoutMs: 0 }, driver);
db.pragma(`synchronous = ${synchronous}`);
setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // The store's connection checkpoints at its own mark.
  }
}, everyMs);
