import { Worker } from 'node:worker_threads';
import type { SqliteDatabase } from './sqlite-connection.js';

/** Journal commits after which a store moves its checkpoints to a thread of their own. */
const BUSY_AFTER_COMMITS = 500;
/** How often that thread checkpoints. */
const EVERY_MS = 50;
/** Log pages at which the store's own connection checkpoints anyway, should the thread fall behind (SQLite's default is 1 000). */
const BACKSTOP_PAGES = 10_000;

/**
 * Checkpoints of a busy SQLite store, off its event loop. A checkpoint copies the write-ahead log into
 * the database file and syncs both to disk. By default SQLite makes one, on the committing connection,
 * whenever the log passes 1 000 pages: with the journal appending several pages a tool call, every
 * hundredth call or so stalled for it, and every call on this event loop with it (the largest part of
 * a journal commit's cost, measured in bench/journal.bench.ts). Once the store has made
 * `BUSY_AFTER_COMMITS` commits, a worker thread with a connection of its own checkpoints every
 * `EVERY_MS`, beside the calls; the store's connection keeps a mark ten times larger, so the log stays
 * bounded whatever the thread does. A quiet store (most tests, a CLI) never starts the thread.
 */
export class SqliteCheckpoints {
  private commits = 0;
  private worker: Worker | undefined;

  constructor(
    private readonly db: SqliteDatabase,
    private readonly path: string,
    private readonly synchronous: 'normal' | 'full',
  ) {}

  /** Counts a commit of the journal; the one that makes the store busy starts the thread. */
  committed(): void {
    if (++this.commits !== BUSY_AFTER_COMMITS || this.path === ':memory:' || this.db.readonly) return;
    try {
      this.worker = new Worker(new URL('./sqlite-checkpoint-worker.js', import.meta.url), {
        workerData: {
          path: this.path,
          synchronous: this.synchronous.toUpperCase(),
          everyMs: EVERY_MS,
          driver: this.db.driver,
        },
      });
    } catch {
      return; // No thread: SQLite's own checkpoints go on as before.
    }
    // The process may end with the thread running; a thread that fails leaves the backstop.
    this.worker.unref();
    this.worker.on('error', () => undefined);
    this.db.pragma(`wal_autocheckpoint = ${BACKSTOP_PAGES}`);
  }

  /** Stops the thread (a checkpoint under way finishes first: SQLite's own call is not interrupted). */
  async stop(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }
}
