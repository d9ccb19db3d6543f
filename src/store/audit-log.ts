// The audit trail's place in a store: the optional `AuditLog` capability and the rows it keeps.

/** The hash an audit trail's first entry names as the one before it: 64 zeros. */
export const GENESIS_HASH = '0'.repeat(64);

/**
 * One entry of the audit trail as a store keeps it. `hash` is the SHA-256 of the entry's canonical
 * encoding (src/audit/audit-chain.ts) over `seq`, `at`, `kind`, `data` and `prev`, the hash of the entry
 * before it; `signature`, when the trail has a key, is the HMAC-SHA256 of `hash` under that key.
 */
export interface AuditRecord {
  /** Its position: 1 for the first entry ever, one more for each after it. Never reused, also after pruning. */
  readonly seq: number;
  /** When it was recorded (ms since the epoch, on the recording node's clock). */
  readonly at: number;
  /** `decision`, `answer`, `expired`, `escalated` or `checkpoint` (see docs/approvals.md). */
  readonly kind: string;
  /** What happened, as JSON. */
  readonly data: unknown;
  readonly prev: string;
  readonly hash: string;
  readonly signature?: string;
}

/** The last entry of a trail: `{ seq: 0, hash: GENESIS_HASH }` when it has none. */
export interface AuditHead {
  readonly seq: number;
  readonly hash: string;
}

/** What `listAudit` takes: entries from position `from`, or recorded at or after `since` (ms), oldest first. */
export interface AuditListOptions {
  readonly from?: number;
  readonly since?: number;
  readonly limit?: number;
}

/**
 * An append-only, hash-chained log of decisions (`audit` in `Wardrik.create`). The chain is only as good
 * as the order of appends, so each append reads the head and writes after it in one transaction that
 * excludes every other append, on any node (SQLite: the write lock; PostgreSQL: an advisory lock).
 */
export interface AuditLog {
  /**
   * Reads the head and appends what `seal` makes of it (entries `head.seq + 1` on, the first naming
   * `head.hash`), atomically. `seal` is synchronous and may be called again if the store retries.
   */
  appendAudit(seal: (head: AuditHead) => readonly AuditRecord[]): Promise<readonly AuditRecord[]>;
  /** Entries in position order, at most `limit`. */
  listAudit(options?: AuditListOptions): Promise<AuditRecord[]>;
  /**
   * Deletes the entries recorded before `before`, never the last one, and appends what `checkpoint` makes of
   * the head and the last entry deleted, in one transaction: the checkpoint vouches for the removed prefix.
   * Returns how many entries went (0: nothing, and no checkpoint).
   */
  pruneAudit(
    before: number,
    checkpoint: (head: AuditHead, last: AuditRecord, removed: number) => AuditRecord,
  ): Promise<number>;
}
