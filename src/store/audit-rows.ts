import { canonicalJson } from '../audit/canonical-json.js';
import type { AuditRecord } from './audit-log.js';

/** An audit entry as SQLite and PostgreSQL keep it: `data` as its canonical JSON text. */
export interface AuditRow {
  readonly seq: number | string;
  readonly at: number;
  readonly kind: string;
  readonly data: string;
  readonly prev: string;
  readonly hash: string;
  readonly signature: string | null;
}

/** The columns of an entry in the order the insert statements bind them. */
export function auditValues(record: AuditRecord): [number, number, string, string, string, string, string | null] {
  const { seq, at, kind, data, prev, hash, signature } = record;
  return [seq, at, kind, canonicalJson(data), prev, hash, signature ?? null];
}

/** A row as an entry. Its data is parsed, never trusted: a row edited into bad JSON reads as text, and fails its hash. */
export function auditOf(row: AuditRow): AuditRecord {
  let data: unknown;
  try {
    data = JSON.parse(row.data);
  } catch {
    data = row.data;
  }
  const record = { seq: Number(row.seq), at: Number(row.at), kind: row.kind, data, prev: row.prev, hash: row.hash };
  return row.signature === null ? record : { ...record, signature: row.signature };
}
