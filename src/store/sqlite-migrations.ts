// The SQLite store's schema (sqlite-store.ts), one migration a version, and what applies them.

import type { SqliteDatabase } from './sqlite-connection.js';
import { schemaVersionError } from './sql-rows.js';

/**
 * Each migration runs once, in order, inside the transaction that records its version. Never edit
 * one that has shipped: add the next.
 */
export const MIGRATIONS: readonly string[] = [
  `CREATE TABLE calls (
     run TEXT NOT NULL, call TEXT NOT NULL, agent TEXT NOT NULL, tool TEXT NOT NULL,
     arguments TEXT, idempotency_key TEXT NOT NULL, state TEXT NOT NULL, attempt INTEGER NOT NULL,
     answer TEXT, inbox_id TEXT, updated_at REAL NOT NULL,
     PRIMARY KEY (run, call));
   CREATE INDEX calls_by_state ON calls (state, updated_at);
   CREATE TABLE inbox (
     seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, status TEXT NOT NULL,
     created_at REAL NOT NULL, item TEXT NOT NULL);
   CREATE INDEX inbox_by_status ON inbox (status, created_at, seq);
   CREATE TABLE remembered (key TEXT PRIMARY KEY, digest TEXT NOT NULL, answer TEXT NOT NULL, expires_at REAL NOT NULL);
   CREATE INDEX remembered_by_expiry ON remembered (expires_at);
   CREATE TABLE spend (agent TEXT PRIMARY KEY, usd REAL NOT NULL);
   CREATE TABLE labels (seq INTEGER PRIMARY KEY AUTOINCREMENT, run TEXT NOT NULL, label TEXT NOT NULL, UNIQUE (run, label));`,
  // 2: run leases (D3), agent turns and their steps (D1), runtime MCP servers (M7). A turn keeps its
  // rowid when updated, so turns created at the same time list in the order they were first written.
  `CREATE TABLE wardrik_leases (run TEXT PRIMARY KEY, node TEXT NOT NULL, until REAL NOT NULL);
   CREATE TABLE wardrik_turns (
     run TEXT PRIMARY KEY, agent TEXT NOT NULL, status TEXT NOT NULL, version INTEGER NOT NULL,
     data TEXT, created_at REAL NOT NULL, updated_at REAL NOT NULL);
   CREATE INDEX wardrik_turns_by_agent ON wardrik_turns (agent, created_at);
   CREATE INDEX wardrik_turns_by_status ON wardrik_turns (status, created_at);
   CREATE TABLE wardrik_steps (
     run TEXT NOT NULL, idx INTEGER NOT NULL, data TEXT, created_at REAL NOT NULL,
     PRIMARY KEY (run, idx));
   CREATE TABLE wardrik_mcp_servers (
     hub TEXT NOT NULL, name TEXT NOT NULL, options TEXT, updated_at REAL NOT NULL,
     PRIMARY KEY (hub, name));`,
  // 3: what each call spent (CallRecord.costUsd), and a run's calls in the order first written (a
  // run's timeline, `listCalls({ run })`); the primary key orders by call id, not by time.
  `ALTER TABLE calls ADD COLUMN cost_usd REAL;
   CREATE INDEX calls_by_run ON calls (run);`,
  // 4: money in integer micro-dollars (dollars as REAL added up to 0.9999999999999999 for ten $0.10),
  // claims on remembered keys (one run per key across processes), budget holds and each tool's cost so far.
  `ALTER TABLE calls ADD COLUMN cost_micro_usd INTEGER;
   UPDATE calls SET cost_micro_usd = CAST(round(cost_usd * 1000000) AS INTEGER) WHERE cost_usd IS NOT NULL;
   ALTER TABLE calls DROP COLUMN cost_usd;
   ALTER TABLE spend ADD COLUMN micro_usd INTEGER NOT NULL DEFAULT 0;
   UPDATE spend SET micro_usd = CAST(round(usd * 1000000) AS INTEGER);
   ALTER TABLE spend DROP COLUMN usd;
   CREATE TABLE wardrik_remembered_claims (key TEXT PRIMARY KEY, digest TEXT NOT NULL, owner TEXT NOT NULL, expires_at REAL NOT NULL);
   CREATE TABLE wardrik_spend_holds (
     agent TEXT NOT NULL, id TEXT NOT NULL, tool TEXT NOT NULL, micro_usd INTEGER NOT NULL, known INTEGER NOT NULL,
     expires_at REAL NOT NULL, PRIMARY KEY (agent, id));
   CREATE TABLE wardrik_tool_costs (tool TEXT PRIMARY KEY, max_micro_usd INTEGER NOT NULL);`,
  // 5: finished turns by agent and by time, and inbox items by run, so an agent's history and
  // retention read only what they need.
  `CREATE INDEX wardrik_turns_finished ON wardrik_turns (agent, updated_at) WHERE status IN ('done', 'failed', 'budget_spent');
   CREATE INDEX wardrik_turns_finished_at ON wardrik_turns (updated_at) WHERE status IN ('done', 'failed', 'budget_spent');
   CREATE INDEX inbox_by_run ON inbox (json_extract(item, '$.run'));`,
  // 6: fewer pages written a commit: a commit's cost is mostly the pages it appends
  // to the log, one per b-tree it touches. A run's calls are found through the primary key (run, call),
  // so calls_by_run was a b-tree more on every new call; steps are kept in their primary key's b-tree
  // (WITHOUT ROWID) rather than in a table and an index beside it.
  `DROP INDEX calls_by_run;
   CREATE TABLE wardrik_steps_keyed (
     run TEXT NOT NULL, idx INTEGER NOT NULL, data TEXT, created_at REAL NOT NULL,
     PRIMARY KEY (run, idx)) WITHOUT ROWID;
   INSERT INTO wardrik_steps_keyed (run, idx, data, created_at) SELECT run, idx, data, created_at FROM wardrik_steps;
   DROP TABLE wardrik_steps;
   ALTER TABLE wardrik_steps_keyed RENAME TO wardrik_steps;`,
  // 7: one index page a tool call less. calls_by_state held every call, so a call's
  // answer moved its entry from the `started` part of the index to the end of `succeeded`: two leaves
  // on that commit. Only calls that wait are looked up by state (recovery, the parked list), so the
  // index now holds only those, in one small leaf. Retention found finished runs of calls through it;
  // it now walks the calls in the order first written, the table's own rowid order (sqlite-retention.ts).
  `DROP INDEX calls_by_state;
   CREATE INDEX calls_waiting ON calls (state, updated_at) WHERE state IN ('started', 'parked');`,
  // 8: a lease taken or given up writes one page, not two: the leases are kept in their primary key's
  // b-tree (WITHOUT ROWID) rather than in a table and an index beside it. A lease row is small and
  // lives only while its run is held, so the table stays a leaf or two.
  `CREATE TABLE wardrik_leases_keyed (run TEXT PRIMARY KEY, node TEXT NOT NULL, until REAL NOT NULL) WITHOUT ROWID;
   INSERT INTO wardrik_leases_keyed (run, node, until) SELECT run, node, until FROM wardrik_leases;
   DROP TABLE wardrik_leases;
   ALTER TABLE wardrik_leases_keyed RENAME TO wardrik_leases;`,
  // 9: a step appended writes about one page, not three. Keyed by (run, idx), the steps were an index
  // b-tree, which SQLite rebalances over three siblings whenever the leaf at its end is full, rewriting
  // 3-4 leaves and their parent every other commit; a rowid table appended at its end takes a new leaf
  // alone (balance_quick). So a run gets a number once, its first step, and its step `idx` is the row
  // `(no << 32) + idx`: a run's steps are one range of rowids, in order, found without an index of their own.
  `CREATE TABLE wardrik_step_runs (no INTEGER PRIMARY KEY, run TEXT NOT NULL UNIQUE);
   CREATE TABLE wardrik_steps_numbered (id INTEGER PRIMARY KEY, data TEXT, created_at REAL NOT NULL);
   INSERT INTO wardrik_step_runs (run) SELECT DISTINCT run FROM wardrik_steps ORDER BY run;
   INSERT INTO wardrik_steps_numbered (id, data, created_at)
     SELECT (r.no << 32) + s.idx, s.data, s.created_at FROM wardrik_steps s JOIN wardrik_step_runs r ON r.run = s.run;
   DROP TABLE wardrik_steps;
   ALTER TABLE wardrik_steps_numbered RENAME TO wardrik_steps;`,
  // 10: a journal commit writes one page less. Each of a turn's commits answers one call and starts the
  // next, so calls_waiting lost one entry and gained another, a page a commit. Runs with calls in
  // `started` are now counted per run, and a commit writes the count only when the run's number of started
  // calls changes (a turn's first and last commit), never when one call follows another (sqlite-journal.ts).
  // Started calls are found through their runs; parked ones, which change seldom, keep an index. And a
  // turn's first commit writes one index less: a turn by agent is found through the finished turns by
  // agent, or the unfinished ones by status (sqlite-statements.ts), so wardrik_turns_by_agent goes.
  `DROP INDEX wardrik_turns_by_agent;
   CREATE TABLE wardrik_started_runs (run TEXT PRIMARY KEY, calls INTEGER NOT NULL) WITHOUT ROWID;
   INSERT INTO wardrik_started_runs (run, calls) SELECT run, count(*) FROM calls WHERE state = 'started' GROUP BY run;
   DROP INDEX calls_waiting;
   CREATE INDEX calls_parked ON calls (updated_at) WHERE state = 'parked';`,
  // 11: a turn's end writes one index page less. wardrik_turns_finished_at (finished turns by time,
  // migration 5) was made for retention, but SQLite finds finished turns through wardrik_turns_by_status
  // (three seeks by status, oldest created first) and no statement read it, while every turn that
  // finished wrote a page of it.
  `DROP INDEX wardrik_turns_finished_at;`,
  // 12: the audit trail (audit-log.ts): hash-chained entries in position order, appended at the end of
  // their rowid b-tree. `data` is the entry's canonical JSON; no index, since only exports and retention read it.
  `CREATE TABLE wardrik_audit (
     seq INTEGER PRIMARY KEY, at REAL NOT NULL, kind TEXT NOT NULL, data TEXT NOT NULL,
     prev TEXT NOT NULL, hash TEXT NOT NULL, signature TEXT);`,
  // 13: a label added writes one page, not three. Labels were a rowid table (AUTOINCREMENT, so each insert
  // also rewrote sqlite_sequence) beside the index of UNIQUE (run, label); now they are that key's b-tree
  // (WITHOUT ROWID), and `seq` orders a run's labels as first written: one more than the run's last, read
  // from the run's few rows in the same insert (sqlite-statements.ts).
  `CREATE TABLE wardrik_labels (
     run TEXT NOT NULL, label TEXT NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (run, label)) WITHOUT ROWID;
   INSERT INTO wardrik_labels (run, label, seq) SELECT run, label, seq FROM labels;
   DROP TABLE labels;
   ALTER TABLE wardrik_labels RENAME TO labels;`,
  // 14: a run's first step writes one page less. Run numbers (migration 9) were a rowid table beside the
  // index of their UNIQUE run; now they are the run's key b-tree (WITHOUT ROWID). A new number is one
  // more than the highest numbered run's, read from the last step row (its high bits) in one seek: every
  // numbered run has a step, numbered in the same transaction, and retention deletes both together.
  `CREATE TABLE wardrik_step_runs_keyed (run TEXT PRIMARY KEY, no INTEGER NOT NULL) WITHOUT ROWID;
   INSERT INTO wardrik_step_runs_keyed (run, no) SELECT run, no FROM wardrik_step_runs;
   DROP TABLE wardrik_step_runs;
   ALTER TABLE wardrik_step_runs_keyed RENAME TO wardrik_step_runs;`,
  // 15: the rule or policy that decided each call (CallRecord.decidedBy, issue 34), for every call, not only
  // a parked one: a parked call's answer kept it (`approval.decidedBy`), and its column takes it from there.
  // Calls journaled before keep NULL: unknown.
  `ALTER TABLE calls ADD COLUMN decided_by TEXT;
   UPDATE calls SET decided_by = json_extract(answer, '$.approval.decidedBy') WHERE state = 'parked' AND answer IS NOT NULL;`,
];

export function currentVersion(db: SqliteDatabase): number {
  const table = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'wardrik_migrations'`).get();
  if (table === undefined) return 0;
  return (
    (db.prepare('SELECT max(version) AS version FROM wardrik_migrations').get() as { version: number | null })
      .version ?? 0
  );
}

export function checkVersion(db: SqliteDatabase, version: number): void {
  if (version > MIGRATIONS.length || (version < MIGRATIONS.length && db.readonly))
    throw schemaVersionError(version, MIGRATIONS.length);
}

/** Applies the migrations a file lacks. */
// IMMEDIATE takes the write lock before reading the version, so two processes opening a new file at
// once cannot both apply the same migration.
export function migrate(db: SqliteDatabase): void {
  db.transaction(() => {
    db.exec('CREATE TABLE IF NOT EXISTS wardrik_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)');
    const version = currentVersion(db);
    checkVersion(db, version);
    const record = db.prepare('INSERT INTO wardrik_migrations (version, applied_at) VALUES (?, ?)');
    for (let next = version + 1; next <= MIGRATIONS.length; next++) {
      db.exec(MIGRATIONS[next - 1]!);
      record.run(next, Date.now());
    }
  }).immediate();
}
