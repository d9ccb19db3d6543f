import type { PruneReport, Pruning } from './store.js';

/** How long finished runs are kept (`retention` in `Wardrik.create`). */
export interface RetentionOptions {
  /**
   * A finished run (its turn ended, or all its calls are final) is deleted this long after its last
   * write: 30 days (2 592 000 000 ms). `Infinity` keeps everything. Parked and in-doubt runs are
   * never deleted, however old.
   */
  readonly finishedAfterMs?: number;
  /** How often the background pass looks for runs to delete: every 10 minutes (600 000 ms); `Infinity` never. */
  readonly everyMs?: number;
}

export const DEFAULT_FINISHED_AFTER_MS = 30 * 24 * 60 * 60 * 1000;
export const DEFAULT_PRUNE_EVERY_MS = 10 * 60 * 1000;
/** Runs one transaction deletes: small, so that calls waiting to write never wait long behind it. */
export const PRUNE_BATCH = 100;

export const NOTHING_PRUNED: PruneReport = Object.freeze({
  runs: 0,
  turns: 0,
  steps: 0,
  calls: 0,
  inbox: 0,
  labels: 0,
  leases: 0,
  holds: 0,
});

/**
 * Deletes every finished run last written before `before`, `PRUNE_BATCH` runs a transaction, giving
 * the event loop back between batches so calls and turns go on meanwhile; resolves with the sum of what
 * went. A dry run counts everything in one pass and deletes nothing.
 */
export async function pruneFinished(store: Pruning, before: number, dryRun = false): Promise<PruneReport> {
  if (dryRun) return store.prune({ before, dryRun: true });
  let total = NOTHING_PRUNED;
  for (;;) {
    const report = await store.prune({ before, limit: PRUNE_BATCH });
    total = addReports(total, report);
    if (report.runs < PRUNE_BATCH) return total;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

function addReports(a: PruneReport, b: PruneReport): PruneReport {
  return Object.fromEntries(
    Object.entries(a).map(([key, count]) => [key, count + b[key as keyof PruneReport]]),
  ) as unknown as PruneReport;
}
