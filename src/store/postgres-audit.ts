import { GENESIS_HASH, type AuditHead, type AuditListOptions, type AuditRecord } from './audit-log.js';
import { auditOf, auditValues, type AuditRow } from './audit-rows.js';
import type { RunStatement } from './postgres-transactions.js';
import type { STATEMENTS } from './postgres-statements.js';

type Run = RunStatement<keyof typeof STATEMENTS>;

/** The advisory lock every append and prune of a schema's audit trail holds, on every node (see `AuditLog`). */
export const AUDIT_LOCK = 'audit';

async function headOf(run: Run): Promise<AuditHead> {
  const [row] = await run<{ seq: string; hash: string }>('auditHead', []);
  return row === undefined ? { seq: 0, hash: GENESIS_HASH } : { seq: Number(row.seq), hash: row.hash };
}

async function insert(run: Run, records: readonly AuditRecord[]): Promise<void> {
  if (records.length === 0) return;
  const columns: unknown[][] = [[], [], [], [], [], [], []];
  for (const record of records) auditValues(record).forEach((value, i) => columns[i]!.push(value));
  await run('auditInsert', columns);
}

/** An append, in a transaction holding `AUDIT_LOCK`: the head is read after the lock is taken. */
export async function appendAuditLocked(
  run: Run,
  seal: (head: AuditHead) => readonly AuditRecord[],
): Promise<readonly AuditRecord[]> {
  const records = seal(await headOf(run));
  await insert(run, records);
  return records;
}

/** A prune, in a transaction holding `AUDIT_LOCK`. */
export async function pruneAuditLocked(
  run: Run,
  before: number,
  checkpoint: (head: AuditHead, last: AuditRecord, removed: number) => AuditRecord,
): Promise<number> {
  const head = await headOf(run);
  const [last] = await run<AuditRow>('auditLastBefore', [before, head.seq]);
  if (last === undefined) return 0;
  const [gone] = await run<{ removed: string }>('auditDeleteThrough', [last.seq]);
  const removed = Number(gone?.removed ?? 0);
  await insert(run, [checkpoint(head, auditOf(last), removed)]);
  return removed;
}

/** The values of `auditList`. */
export function auditListValues(options: AuditListOptions): unknown[] {
  return [options.from ?? 1, options.since ?? -1e308, options.limit ?? null];
}
