import type { SqliteDatabase, SqliteStatement } from './sqlite-connection.js';
import type { PruneOptions, PruneReport } from './store.js';

// What the SQLite store deletes when finished runs age out (`Store.prune`): `@before` is the cutoff time,
// `@limit` the most runs a pass takes.

/** A run may go when nothing in it waits (no parked or started call) and nothing in it was written since the cutoff. */
const QUIET = `NOT EXISTS (SELECT 1 FROM calls c WHERE c.run = r.run AND (c.state IN ('parked', 'started') OR c.updated_at >= @before))`;

/** Calls read a statement when walking the calls for runs of calls only. */
const WALK_CHUNK = 256;
/**
 * The walk ends after this many calls in a row written since the cutoff: the calls are in the order
 * first written, so from there on all are young. A few that are not (a call answered late, another
 * process's clock, a test clock) are walked past.
 */
const YOUNG_IN_A_ROW = 1_000;

const STATEMENTS = {
  // Finished turns through the index of turns by status: a seek for each finished status, oldest created first.
  finishedTurns: `SELECT run FROM wardrik_turns r
     WHERE status IN ('done', 'failed', 'budget_spent') AND updated_at < @before AND ${QUIET} LIMIT +@limit`,
  // Runs of calls only (made through runner.run, or served over MCP) are found by walking the calls in
  // the order first written (rowid), a chunk at a time: no index of calls by state or time is kept for
  // this, since each would cost a page a commit.
  oldCalls: `SELECT rowid, run, updated_at FROM calls WHERE rowid > ? ORDER BY rowid LIMIT ${WALK_CHUNK}`,
  // Such a run may go when it has no turn and is quiet: every call final and old.
  callRunMayGo: `SELECT 1 FROM (SELECT @run AS run) r
     WHERE NOT EXISTS (SELECT 1 FROM wardrik_turns t WHERE t.run = r.run) AND ${QUIET}`,
  deleteCalls: 'DELETE FROM calls WHERE run = ?',
  // The run's range of rowids (migration 9), then its number.
  deleteSteps: `DELETE FROM wardrik_steps WHERE id IN (SELECT s.id FROM wardrik_step_runs r, wardrik_steps s
     WHERE r.run = ? AND s.id >= r.no << 32 AND s.id < (r.no + 1) << 32)`,
  deleteStepRun: 'DELETE FROM wardrik_step_runs WHERE run = ?',
  deleteLabels: 'DELETE FROM labels WHERE run = ?',
  deleteTurn: 'DELETE FROM wardrik_turns WHERE run = ?',
  deleteLease: 'DELETE FROM wardrik_leases WHERE run = ?',
  // Through the index on each item's run; a pending item stays (a run with one is not finished anyway).
  deleteInbox: `DELETE FROM inbox WHERE json_extract(item, '$.run') = ? AND status <> 'pending'`,
  deleteLapsedLeases: 'DELETE FROM wardrik_leases WHERE until < @before',
  deleteLapsedHolds: 'DELETE FROM wardrik_spend_holds WHERE expires_at < @before',
} as const;

/** Thrown inside a dry run's transaction to roll it back once everything is counted. */
class DryRun extends Error {
  constructor(readonly report: PruneReport) {
    super('dry run');
  }
}

/** `Store.prune` for a SQLite connection: one IMMEDIATE transaction a pass, rolled back on a dry run. */
export function sqlitePruner(db: SqliteDatabase): (options: PruneOptions) => PruneReport {
  const sql = Object.fromEntries(Object.entries(STATEMENTS).map(([name, text]) => [name, db.prepare(text)])) as {
    readonly [K in keyof typeof STATEMENTS]: SqliteStatement;
  };
  /**
   * Up to `limit` runs of calls only that may go (all when negative), oldest first. What a pass reads
   * is bounded by what it finds, the old calls it must keep (parked runs, turns' calls) and
   * `YOUNG_IN_A_ROW`, not by the size of the store.
   */
  const finishedCallRuns = (before: number, limit: number): string[] => {
    const found: string[] = [];
    const seen = new Set<string>();
    let young = 0;
    for (let after = 0; ;) {
      const rows = sql.oldCalls.all(after) as { rowid: number; run: string; updated_at: number }[];
      for (const row of rows) {
        if (row.updated_at >= before) {
          if (++young === YOUNG_IN_A_ROW) return found;
          continue;
        }
        young = 0;
        if (seen.has(row.run)) continue;
        seen.add(row.run);
        if (sql.callRunMayGo.get({ run: row.run, before }) !== undefined && found.push(row.run) === limit) return found;
      }
      if (rows.length === 0) return found;
      after = rows[rows.length - 1]!.rowid;
    }
  };
  const pass = db.transaction((options: PruneOptions): PruneReport => {
    const limit = options.limit ?? -1;
    const before = options.before;
    const runs = (sql.finishedTurns.all({ before, limit }) as { run: string }[]).map((row) => row.run);
    const more = limit < 0 ? -1 : limit - runs.length;
    if (more !== 0) runs.push(...finishedCallRuns(before, more));
    const report = { runs: runs.length, turns: 0, steps: 0, calls: 0, inbox: 0, labels: 0, leases: 0, holds: 0 };
    for (const run of runs) {
      report.calls += sql.deleteCalls.run(run).changes;
      report.steps += sql.deleteSteps.run(run).changes;
      sql.deleteStepRun.run(run);
      report.labels += sql.deleteLabels.run(run).changes;
      report.turns += sql.deleteTurn.run(run).changes;
      report.leases += sql.deleteLease.run(run).changes;
      report.inbox += sql.deleteInbox.run(run).changes;
    }
    report.leases += sql.deleteLapsedLeases.run({ before }).changes;
    report.holds = sql.deleteLapsedHolds.run({ before }).changes;
    if (options.dryRun === true) throw new DryRun(report);
    return report;
  });
  return (options) => {
    try {
      return pass.immediate(options);
    } catch (error) {
      if (error instanceof DryRun) return error.report;
      throw error;
    }
  };
}
