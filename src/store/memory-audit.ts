import { GENESIS_HASH, type AuditHead, type AuditListOptions, type AuditRecord } from './audit-log.js';

/**
 * The memory store's audit log (`AuditLog`): entries in position order. Each method runs to its end
 * without yielding, so an append's read of the head and its write are one step.
 */
export class MemoryAudit {
  private entries: AuditRecord[] = [];

  append(seal: (head: AuditHead) => readonly AuditRecord[]): readonly AuditRecord[] {
    const added = seal(this.head());
    // A copy, as a database would keep: later changes to the caller's objects do not reach the trail.
    this.entries.push(...added.map((entry) => structuredClone(entry)));
    return added;
  }

  list(options: AuditListOptions = {}): AuditRecord[] {
    const from = options.from ?? 1;
    const since = options.since ?? -Infinity;
    const found = this.entries.filter((entry) => entry.seq >= from && entry.at >= since);
    return structuredClone(found.slice(0, options.limit ?? found.length));
  }

  prune(before: number, checkpoint: (head: AuditHead, last: AuditRecord, removed: number) => AuditRecord): number {
    const head = this.head();
    const last = this.entries.filter((entry) => entry.at < before && entry.seq < head.seq).pop();
    if (last === undefined) return 0;
    const removed = this.entries.filter((entry) => entry.seq <= last.seq).length;
    this.entries = this.entries.filter((entry) => entry.seq > last.seq);
    this.entries.push(structuredClone(checkpoint(head, last, removed)));
    return removed;
  }

  private head(): AuditHead {
    const last = this.entries[this.entries.length - 1];
    return last === undefined ? { seq: 0, hash: GENESIS_HASH } : { seq: last.seq, hash: last.hash };
  }
}
