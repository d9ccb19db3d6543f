import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import pg from 'pg';

/**
 * Commits in a SQLite database's write-ahead log, read from the file as SQLite wrote it: every frame
 * whose header carries the database size is the last frame of one committed transaction. Frames of an
 * earlier generation of the log (other salts) are not counted. Valid while no checkpoint restarts the
 * log, which SQLite does after 1 000 pages unless the connection closes first: tests compare counts
 * taken while the store is open, over a few hundred pages at most.
 */
export function walCommits(dbPath: string): number {
  return walFrames(dbPath).filter((frame) => frame.commit).length;
}

/**
 * The pages a SQLite database's write-ahead log holds, frame by frame, in the order written, each with
 * whether it ends a commit (its header carries the database size). Frames of an earlier generation of
 * the log (other salts) are left out; valid while no checkpoint restarts the log (see `walCommits`).
 */
export function walFrames(dbPath: string): { page: number; commit: boolean }[] {
  const wal = `${dbPath}-wal`;
  if (!existsSync(wal)) return [];
  const size = statSync(wal).size;
  if (size < 32) return [];
  const fd = openSync(wal, 'r');
  try {
    const header = Buffer.alloc(32);
    readSync(fd, header, 0, 32, 0);
    const pageSize = header.readUInt32BE(8);
    const salt1 = header.readUInt32BE(16);
    const salt2 = header.readUInt32BE(20);
    const frame = Buffer.alloc(24);
    const frames: { page: number; commit: boolean }[] = [];
    for (let at = 32; at + 24 + pageSize <= size; at += 24 + pageSize) {
      readSync(fd, frame, 0, 24, at);
      if (frame.readUInt32BE(8) !== salt1 || frame.readUInt32BE(12) !== salt2) break;
      frames.push({ page: frame.readUInt32BE(0), commit: frame.readUInt32BE(4) !== 0 });
    }
    return frames;
  } finally {
    closeSync(fd);
  }
}

/**
 * Counts the statements this process sends to PostgreSQL that name `schema` (each one round trip) and
 * the write transactions among them: a statement outside BEGIN … COMMIT is its own transaction, and a
 * BEGIN … COMMIT block is one (the journal's writes go through a function: `SELECT * FROM wardrik_journal(…)`). Counted at the driver (`pg.Client#query`), under the store.
 */
export function countPostgres(schema: string) {
  const counts = { roundTrips: 0, transactions: 0 };
  const original = pg.Client.prototype.query;
  const inBlock = new WeakSet<object>();
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const first = args[0] as string | { text?: string };
    const text = typeof first === 'string' ? first : (first?.text ?? '');
    if (text === 'BEGIN') inBlock.add(this);
    else if (text === 'COMMIT' || text === 'ROLLBACK') inBlock.delete(this);
    if (text === 'BEGIN' || text.includes(`"${schema}"`)) {
      counts.roundTrips++;
      if (
        text === 'BEGIN' ||
        (!inBlock.has(this) && /^\s*(WITH|INSERT|UPDATE|DELETE)|\.wardrik_journal(_row)?\(/i.test(text))
      )
        counts.transactions++;
    }
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof original;
  return {
    counts,
    restore: () => {
      pg.Client.prototype.query = original;
    },
  };
}
