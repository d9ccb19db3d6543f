import type { SqliteDatabase } from './sqlite-connection.js';
import { answerJson } from './journal-data.js';
import { rememberedOf, type RememberedRow } from './sql-rows.js';
import type { SqliteStatements } from './sqlite-statements.js';
import type { ClaimOutcome, HoldOutcome, RememberedClaim, RememberedRecord, SpendHold } from './store.js';

/**
 * What the SQLite store reads, then writes: a claim on a remembered key, a result remembered (ending
 * its claim), a budget hold and its release. Each is an IMMEDIATE transaction: the write lock is taken
 * before the reads, so racing processes take turns.
 */
export interface SqliteClaims {
  readonly claim: (claim: RememberedClaim, now: number) => ClaimOutcome;
  readonly putRemembered: (record: RememberedRecord) => void;
  readonly hold: (hold: SpendHold, now: number) => HoldOutcome;
  readonly releaseHold: (agent: string, id: string, tool: string, cost: number | undefined) => void;
}

export function sqliteClaims(db: SqliteDatabase, sql: SqliteStatements): SqliteClaims {
  return {
    claim: immediate(db, (claim: RememberedClaim, now: number): ClaimOutcome => {
      const row = sql.getRemembered.get(claim.key, now) as RememberedRow | undefined;
      if (row !== undefined) return { claimed: false, remembered: rememberedOf(claim.key, row) };
      const held = sql.getClaim.get(claim.key, now, claim.owner) as { owner: string; digest: string } | undefined;
      if (held !== undefined) return { claimed: false, heldBy: held.owner, digest: held.digest };
      sql.putClaim.run(claim.key, claim.digest, claim.owner, claim.expiresAt);
      return { claimed: true };
    }),
    putRemembered: immediate(db, (record: RememberedRecord) => {
      sql.putRemembered.run(record.key, record.digest, answerJson(record.answer), record.expiresAt);
      sql.deleteClaim.run(record.key);
    }),
    hold: immediate(db, (hold: SpendHold, now: number): HoldOutcome => {
      sql.pruneHolds.run(hold.agent, now);
      const held = sql.sumHolds.get(hold.agent, hold.tool, hold.agent) as { held: number; busy: number };
      if (held.held >= hold.budgetMicroUsd) return 'spent';
      const microUsd =
        hold.maxMicroUsd ?? (sql.getToolCost.get(hold.tool) as { max_micro_usd: number } | undefined)?.max_micro_usd;
      if (microUsd === undefined && held.busy > 0) return 'busy';
      sql.putHold.run(hold.agent, hold.id, hold.tool, microUsd ?? 0, microUsd === undefined ? 0 : 1, hold.expiresAt);
      return 'held';
    }),
    releaseHold: immediate(db, (agent: string, id: string, tool: string, cost: number | undefined) => {
      sql.deleteHold.run(agent, id);
      if (cost !== undefined) sql.putToolCost.run(tool, cost);
    }),
  };
}

/** A function run in an IMMEDIATE transaction: it holds the write lock from its first read. */
function immediate<A extends unknown[], R>(db: SqliteDatabase, work: (...args: A) => R): (...args: A) => R {
  const transaction = db.transaction(work);
  return (...args) => transaction.immediate(...args);
}
