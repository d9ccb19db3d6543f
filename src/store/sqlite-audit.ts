import { GENESIS_HASH, type AuditHead, type AuditListOptions, type AuditRecord } from './audit-log.js';
import { auditOf, auditValues, type AuditRow } from './audit-rows.js';
import type { SqliteDatabase } from './sqlite-connection.js';

const COLUMNS = 'seq, at, kind, data, prev, hash, signature';

/**
 * The SQLite store's audit log (`AuditLog`, migration 12). Appends and prunes are IMMEDIATE transactions:
 * the write lock is taken before the head is read, so appends from any process follow one another.
 */
export interface SqliteAudit {
  readonly append: (seal: (head: AuditHead) => readonly AuditRecord[]) => readonly AuditRecord[];
  readonly list: (options: AuditListOptions) => AuditRecord[];
  readonly prune: (
    before: number,
    checkpoint: (head: AuditHead, last: AuditRecord, removed: number) => AuditRecord,
  ) => number;
}

export function sqliteAudit(db: SqliteDatabase): SqliteAudit {
  const headOf = db.prepare('SELECT seq, hash FROM wardrik_audit ORDER BY seq DESC LIMIT 1');
  const insert = db.prepare(`INSERT INTO wardrik_audit (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)`);
  const list = db.prepare(`SELECT ${COLUMNS} FROM wardrik_audit WHERE seq >= ? AND at >= ? ORDER BY seq LIMIT ?`);
  const lastBefore = db.prepare(
    `SELECT ${COLUMNS} FROM wardrik_audit WHERE at < ? AND seq < ? ORDER BY seq DESC LIMIT 1`,
  );
  const deleteThrough = db.prepare('DELETE FROM wardrik_audit WHERE seq <= ?');
  const head = (): AuditHead => (headOf.get() as AuditHead | undefined) ?? { seq: 0, hash: GENESIS_HASH };
  const append = db.transaction((seal: (head: AuditHead) => readonly AuditRecord[]) => {
    const records = seal(head());
    for (const record of records) insert.run(...auditValues(record));
    return records;
  });
  const prune = db.transaction(
    (before: number, checkpoint: (head: AuditHead, last: AuditRecord, removed: number) => AuditRecord) => {
      const now = head();
      const last = lastBefore.get(before, now.seq) as AuditRow | undefined;
      if (last === undefined) return 0;
      const removed = deleteThrough.run(last.seq).changes;
      insert.run(...auditValues(checkpoint(now, auditOf(last), removed)));
      return removed;
    },
  );
  return {
    append: (seal) => append.immediate(seal),
    list: (options) =>
      (list.all(options.from ?? 1, options.since ?? -1e308, options.limit ?? -1) as AuditRow[]).map(auditOf),
    prune: (before, checkpoint) => prune.immediate(before, checkpoint),
  };
}
