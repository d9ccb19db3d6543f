import { GENESIS_HASH, type AuditHead, type AuditLog, type AuditRecord } from '../store/audit-log.js';
import { entryHash, signedBy } from './audit-chain.js';

/** The first thing wrong with a trail: which entry, and what happened to it. */
export interface AuditProblem {
  /** The entry that was changed, removed or moved (for a removed prefix, its first entry). */
  readonly seq: number;
  readonly what: 'changed' | 'removed' | 'unsigned' | 'forged';
  readonly message: string;
}

/** What `verifyAudit` found. */
export interface AuditVerification {
  /** Entries read. */
  readonly entries: number;
  /** The last entry read: record it elsewhere to tell later whether entries were cut from the end. */
  readonly head: AuditHead;
  /** The first entry still kept (1 unless a prefix was pruned). */
  readonly first: number;
  readonly problem?: AuditProblem;
}

/**
 * Checks entries one by one in position order: each one's hash over its content, its position one after
 * the entry before, the hash it names as the one before it, its signature (given the key), and that a
 * pruned prefix is vouched for by a checkpoint. Stops at the first problem.
 */
export class ChainCheck {
  private last: AuditRecord | undefined;
  private count = 0;
  private firstSeq = 0;
  /** The prefix missing before the first entry read, until a checkpoint vouches for it. */
  private missing: { readonly through: number; readonly hash: string } | undefined;
  /** The furthest prefix a checkpoint vouched for, to name what else went. */
  private vouchedThrough = 0;
  private found: AuditProblem | undefined;

  constructor(private readonly key?: string) {}

  /** Takes the next entry; answers the first problem once there is one. */
  add(record: AuditRecord): AuditProblem | undefined {
    if (this.found !== undefined) return this.found;
    this.count++;
    const before = this.last;
    const seq = record.seq;
    if (before === undefined) {
      this.firstSeq = seq;
      if (seq > 1) this.missing = { through: seq - 1, hash: record.prev };
      else if (record.prev !== GENESIS_HASH)
        return this.fail(seq, 'changed', `entry ${seq} was changed: the first entry must name no entry before it`);
    } else if (seq !== before.seq + 1) {
      return seq <= before.seq
        ? this.fail(seq, 'changed', `entry ${seq} is out of order (after entry ${before.seq})`)
        : this.fail(
            before.seq + 1,
            'removed',
            `entry ${before.seq + 1} was removed: the chain goes from entry ${before.seq} to entry ${seq}`,
          );
    }
    if (entryHash(record) !== record.hash)
      return this.fail(seq, 'changed', `entry ${seq} was changed or moved: its content no longer matches its hash`);
    // Guard (audit-chain-linked): an entry rewritten with a hash recomputed breaks the link the next one holds.
    if (before !== undefined && record.prev !== before.hash)
      return this.fail(
        before.seq,
        'changed',
        `entry ${before.seq} was changed or replaced: entry ${seq} names another hash for it`,
      );
    if (this.key !== undefined && record.signature === undefined)
      return this.fail(seq, 'unsigned', `entry ${seq} is not signed, though the trail is checked with a key`);
    if (this.key !== undefined && !signedBy(this.key, record.hash, record.signature))
      return this.fail(
        seq,
        'forged',
        `entry ${seq}'s signature does not match the key: it was signed with another key, or rewritten`,
      );
    if (record.kind === 'checkpoint') this.vouch(record.data);
    this.last = record;
    return undefined;
  }

  /** The result once every entry was added. */
  finish(): AuditVerification {
    const head =
      this.last === undefined ? { seq: 0, hash: GENESIS_HASH } : { seq: this.last.seq, hash: this.last.hash };
    const base = { entries: this.count, head, first: this.firstSeq };
    if (this.found !== undefined) return { ...base, problem: this.found };
    if (this.missing !== undefined && this.vouchedThrough >= this.missing.through) {
      const seq = this.firstSeq;
      const message = `entry ${seq} was changed: the hash it names for entry ${seq - 1} is not the one the checkpoint recorded`;
      return { ...base, problem: { seq, what: 'changed', message } };
    }
    if (this.missing !== undefined) {
      const from = this.vouchedThrough + 1;
      const problem: AuditProblem = {
        seq: from,
        what: 'removed',
        message: `entr${from === this.missing.through ? `y ${from} was` : `ies ${from} to ${this.missing.through} were`} removed: the trail starts at entry ${this.missing.through + 1} and no checkpoint says ${from === this.missing.through ? 'it was' : 'they were'} pruned`,
      };
      return { ...base, problem };
    }
    return base;
  }

  private vouch(data: unknown): void {
    const { through, lastHash } = (data ?? {}) as { through?: unknown; lastHash?: unknown };
    if (typeof through !== 'number') return;
    if (this.missing !== undefined && through === this.missing.through && lastHash === this.missing.hash)
      this.missing = undefined;
    else if (through > this.vouchedThrough) this.vouchedThrough = through;
  }

  private fail(seq: number, what: AuditProblem['what'], message: string): AuditProblem {
    this.found = { seq, what, message };
    return this.found;
  }
}

/** Reads a store's whole trail, a page at a time, and checks it (see `ChainCheck`). */
export async function verifyAudit(log: AuditLog, key?: string, pageSize = 1000): Promise<AuditVerification> {
  const check = new ChainCheck(key);
  let from = 1;
  for (;;) {
    const page = await log.listAudit({ from, limit: pageSize });
    for (const record of page) if (check.add(record) !== undefined) return check.finish();
    if (page.length < pageSize) return check.finish();
    from = page[page.length - 1]!.seq + 1;
  }
}
