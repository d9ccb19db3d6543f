import type { Clock } from '../clock.js';
import type { AuditLog, AuditRecord } from '../store/audit-log.js';
import { chainAfter, type AuditDraft } from './audit-chain.js';

type Waiting = AuditDraft & { readonly done: (error?: unknown) => void };

/**
 * Appends decisions to the store's audit log (`AuditLog`). Entries recorded while an append is under way
 * are appended together in the next one: one transaction for many concurrent calls. `record` resolves
 * once its entry is durable, and rejects when the store could not append it: a decision that cannot be
 * audited is not acted on.
 */
export class AuditTrail {
  private waiting: Waiting[] = [];
  private appending = false;

  /** @internal */
  constructor(
    private readonly log: AuditLog,
    private readonly clock: Clock,
    private readonly key: string | undefined,
  ) {}

  /** Appends one entry of `kind`; resolves once it is in the store. */
  record(kind: string, data: unknown): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({
        at: this.clock.now(),
        kind,
        data,
        done: (error) => (error === undefined ? resolve() : reject(error as Error)),
      });
      if (!this.appending) void this.appendWaiting();
    });
  }

  /** Deletes entries recorded before `before` and appends a checkpoint for them; returns how many went. */
  prune(before: number): Promise<number> {
    return this.log.pruneAudit(before, (head, last, removed) => {
      const data = { through: last.seq, lastHash: last.hash, removed, before };
      return chainAfter(head, [{ at: this.clock.now(), kind: 'checkpoint', data }], this.key)[0]!;
    });
  }

  private async appendWaiting(): Promise<void> {
    this.appending = true;
    while (this.waiting.length > 0) {
      const drafts = this.waiting;
      this.waiting = [];
      let error: unknown;
      try {
        await this.log.appendAudit((head): AuditRecord[] => chainAfter(head, drafts, this.key));
      } catch (failed) {
        error = failed ?? new Error('the audit log could not be appended to');
      }
      for (const draft of drafts) draft.done(error);
    }
    this.appending = false;
  }
}
