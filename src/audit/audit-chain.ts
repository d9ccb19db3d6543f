import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { AuditHead, AuditRecord } from '../store/audit-log.js';
import { canonicalJson } from './canonical-json.js';

/** An entry before it has a place in the chain. */
export interface AuditDraft {
  readonly at: number;
  readonly kind: string;
  readonly data: unknown;
}

/**
 * The SHA-256 (hex) of an entry: of the canonical JSON (canonical-json.ts) of
 * `{ "v": 1, "seq", "at", "kind", "data", "prev" }`. `v` is the encoding's version: a later one hashes
 * differently and says so here.
 */
export function entryHash(entry: Omit<AuditRecord, 'hash' | 'signature'>): string {
  const { seq, at, kind, data, prev } = entry;
  return createHash('sha256')
    .update(canonicalJson({ v: 1, seq, at, kind, data, prev }))
    .digest('hex');
}

/** The HMAC-SHA256 (hex) of an entry's hash under `key`. */
export function entrySignature(key: string, hash: string): string {
  return createHmac('sha256', key).update(hash).digest('hex');
}

/** Whether `signature` is `hash`'s under `key`, compared in constant time. */
export function signedBy(key: string, hash: string, signature: string | undefined): boolean {
  if (signature === undefined) return false;
  const expected = Buffer.from(entrySignature(key, hash), 'hex');
  const given = Buffer.from(signature, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The drafts as entries after `head`, each naming the hash of the one before, signed when there is a key. */
export function chainAfter(head: AuditHead, drafts: readonly AuditDraft[], key: string | undefined): AuditRecord[] {
  const records: AuditRecord[] = [];
  let prev = head;
  for (const draft of drafts) {
    const unsigned = { seq: prev.seq + 1, at: draft.at, kind: draft.kind, data: draft.data, prev: prev.hash };
    const hash = entryHash(unsigned);
    records.push(
      key === undefined ? { ...unsigned, hash } : { ...unsigned, hash, signature: entrySignature(key, hash) },
    );
    prev = { seq: unsigned.seq, hash };
  }
  return records;
}
