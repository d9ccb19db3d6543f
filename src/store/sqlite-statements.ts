import type { SqliteDatabase, SqliteStatement } from './sqlite-connection.js';

// The SQL of the SQLite store (sqlite-store.ts), apart from its migrations.

const columns =
  'run, call, agent, tool, arguments, idempotency_key, state, attempt, answer, inbox_id, updated_at, cost_micro_usd, decided_by';
const qualified = columns
  .split(', ')
  .map((column) => `c.${column}`)
  .join(', ');
const turnColumns = 'run, agent, status, version, data, created_at, updated_at';

/**
 * Every statement the SQLite store runs, by name.
 *
 * A parameter the planner reads while it plans makes SQLite compile the statement again whenever it is
 * bound anew, that is at every run (some 40 000-60 000 instructions, more than the query itself): a bare
 * `LIMIT ?`, and a parameter compared in a WHERE whose ORDER BY or partial index the planner weighs
 * (SQLite 3.53 and 3.54, as both drivers ship it). Such a parameter is written `+?`, an expression the
 * planner leaves to run time: the same value and the same plan (or a CTE, as in listWaitingCalls). The
 * agent-start history read (lastFinishedTurns) was compiled again at every turn.
 */
const STATEMENTS = {
  getCall: `SELECT ${columns} FROM calls WHERE run = ? AND call = ?`,
  insertCall: `INSERT INTO calls (${columns})
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (run, call) DO NOTHING`,
  updateCall: `UPDATE calls SET agent = ?, tool = ?, arguments = ?, idempotency_key = ?,
       state = ?, attempt = ?, answer = ?, inbox_id = ?, updated_at = ?, cost_micro_usd = ?, decided_by = ?
     WHERE run = ? AND call = ? AND state = ? AND (state <> 'started' OR ? <> 'started' OR attempt < ?)`,
  // Oldest first; rowid breaks ties in the order the calls were first written. Calls that wait (the state
  // is 'started' or 'parked') come through the runs counted in wardrik_started_runs or the partial index
  // calls_parked (migration 10); calls in a final state are read by a scan, which no call's path does
  // (contract tests, inspection).
  listWaitingCalls: `WITH wanted (state) AS (SELECT ?)
     SELECT ${columns} FROM (
       SELECT ${qualified}, c.rowid AS seq FROM wardrik_started_runs s CROSS JOIN calls c ON c.run = s.run
         WHERE c.state = 'started' AND (SELECT state FROM wanted) = 'started'
       UNION ALL
       SELECT ${columns}, rowid AS seq FROM calls WHERE state = 'parked' AND (SELECT state FROM wanted) = 'parked')
     ORDER BY updated_at, seq LIMIT +?`,
  listCalls: `SELECT ${columns} FROM calls WHERE state = +? ORDER BY updated_at, rowid LIMIT +?`,
  // A run's calls in the order first written (an update keeps the rowid).
  listRunCalls: `SELECT ${columns} FROM calls WHERE run = +? ORDER BY rowid LIMIT +?`,
  // `+state`: through the primary key by run, never by state (which would read every waiting call).
  listRunCallsInState: `SELECT ${columns} FROM calls WHERE run = +? AND +state = +? ORDER BY rowid LIMIT +?`,
  // Runs from their calls and their turns, most recent first; a turn's row alone says its status.
  listRuns: `SELECT run, max(agent) AS agent, max(status) AS status, sum(calls) AS calls, sum(parked) AS parked,
       sum(cost) AS cost_micro_usd, min(first_at) AS first_at, max(last_at) AS last_at
     FROM (
       SELECT run, agent, NULL AS status, count(*) AS calls, sum(state = 'parked') AS parked, sum(cost_micro_usd) AS cost,
         min(updated_at) AS first_at, max(updated_at) AS last_at
       FROM calls WHERE ? IS NULL OR agent = ? GROUP BY run, agent
       UNION ALL
       SELECT run, agent, status, 0, 0, NULL, created_at, updated_at FROM wardrik_turns WHERE ? IS NULL OR agent = ?)
     GROUP BY run ORDER BY last_at DESC, run LIMIT +?`,
  getInbox: 'SELECT item FROM inbox WHERE id = ?',
  listInboxPending: `SELECT item FROM inbox WHERE status = 'pending' ORDER BY created_at, seq`,
  listInboxAll: 'SELECT item FROM inbox ORDER BY created_at, seq',
  // An upsert keeps the item's `seq`, so replacing an item does not move it in the list.
  putInbox: `INSERT INTO inbox (id, status, created_at, item) VALUES (?, ?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET status = excluded.status, created_at = excluded.created_at, item = excluded.item`,
  updateInbox: 'UPDATE inbox SET status = ?, created_at = ?, item = ? WHERE id = ? AND status = ?',
  // An answer toward a quorum: only if nobody wrote the item since it was read.
  updateInboxRevision: `UPDATE inbox SET status = ?, created_at = ?, item = ?
     WHERE id = ? AND status = ? AND coalesce(json_extract(item, '$.revision'), 0) = ?`,
  getRemembered: 'SELECT digest, answer, expires_at FROM remembered WHERE key = ? AND expires_at > ?',
  putRemembered: `INSERT INTO remembered (key, digest, answer, expires_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (key) DO UPDATE SET digest = excluded.digest, answer = excluded.answer, expires_at = excluded.expires_at`,
  pruneRemembered: 'DELETE FROM remembered WHERE expires_at <= ?',
  // A live claim of another call (an expired one, or the caller's own, may be taken).
  getClaim: 'SELECT owner, digest FROM wardrik_remembered_claims WHERE key = ? AND expires_at > ? AND owner <> ?',
  putClaim: `INSERT INTO wardrik_remembered_claims (key, digest, owner, expires_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (key) DO UPDATE SET digest = excluded.digest, owner = excluded.owner, expires_at = excluded.expires_at`,
  deleteClaim: 'DELETE FROM wardrik_remembered_claims WHERE key = ?',
  releaseClaim: 'DELETE FROM wardrik_remembered_claims WHERE key = ? AND owner = ?',
  pruneClaims: 'DELETE FROM wardrik_remembered_claims WHERE expires_at <= ?',
  addSpend:
    'INSERT INTO spend (agent, micro_usd) VALUES (?, ?) ON CONFLICT (agent) DO UPDATE SET micro_usd = micro_usd + excluded.micro_usd RETURNING micro_usd',
  getSpend: 'SELECT micro_usd FROM spend WHERE agent = ?',
  pruneHolds: 'DELETE FROM wardrik_spend_holds WHERE agent = ? AND expires_at <= ?',
  // The agent's spend plus its holds, and whether a call of the tool holds without a known cost.
  sumHolds: `SELECT coalesce((SELECT micro_usd FROM spend WHERE agent = ?), 0) + coalesce(sum(micro_usd), 0) AS held,
       coalesce(sum(tool = ? AND NOT known), 0) AS busy
     FROM wardrik_spend_holds WHERE agent = ?`,
  putHold:
    'INSERT OR REPLACE INTO wardrik_spend_holds (agent, id, tool, micro_usd, known, expires_at) VALUES (?, ?, ?, ?, ?, ?)',
  deleteHold: 'DELETE FROM wardrik_spend_holds WHERE agent = ? AND id = ?',
  getToolCost: 'SELECT max_micro_usd FROM wardrik_tool_costs WHERE tool = ?',
  putToolCost: `INSERT INTO wardrik_tool_costs (tool, max_micro_usd) VALUES (?, ?)
     ON CONFLICT (tool) DO UPDATE SET max_micro_usd = max(max_micro_usd, excluded.max_micro_usd)`,
  // A label's seq is one more than its run's last (migration 13): a run has a few labels, all in one leaf.
  // In VALUES, not INSERT ... SELECT: a SELECT from the table written is first copied to a temporary one.
  addLabel: `INSERT INTO labels (run, label, seq) VALUES (?, ?, (SELECT coalesce(max(seq), 0) + 1 FROM labels WHERE run = +?))
     ON CONFLICT (run, label) DO NOTHING`,
  getLabels: 'SELECT label FROM labels WHERE run = +? ORDER BY seq',
  // One statement: the upsert's WHERE lets the holder renew and anyone take a free or expired lease;
  // otherwise nothing changes (changes = 0). SQLite's write lock makes racing nodes take turns.
  leaseRun: `INSERT INTO wardrik_leases (run, node, until) VALUES (?, ?, ?)
     ON CONFLICT (run) DO UPDATE SET node = excluded.node, until = excluded.until
     WHERE wardrik_leases.node = excluded.node OR wardrik_leases.until < ?`,
  // leaseRun, only while the call is still started: one statement, so no answer commits between the two.
  leaseRunWhileStarted: `INSERT INTO wardrik_leases (run, node, until)
     SELECT ?, ?, ? WHERE EXISTS (SELECT 1 FROM calls WHERE run = ? AND call = ? AND state = 'started')
     ON CONFLICT (run) DO UPDATE SET node = excluded.node, until = excluded.until
     WHERE wardrik_leases.node = excluded.node OR wardrik_leases.until < ?`,
  releaseRun: 'DELETE FROM wardrik_leases WHERE run = ? AND node = ?',
  // A run's count of started calls (migration 10), changed by a commit's net change; none is kept at 0.
  countStarted: `INSERT INTO wardrik_started_runs (run, calls) VALUES (?, ?)
     ON CONFLICT (run) DO UPDATE SET calls = calls + excluded.calls`,
  dropStarted: 'DELETE FROM wardrik_started_runs WHERE run = ? AND calls <= 0',
  getTurn: `SELECT ${turnColumns} FROM wardrik_turns WHERE run = ?`,
  insertTurn: `INSERT INTO wardrik_turns (${turnColumns}) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (run) DO NOTHING`,
  // SQLite rewrites an index whenever the SET names one of its columns, even to the value it holds: a
  // turn's agent and created_at never change in Wardrik, so the usual update leaves them out (and the
  // indexes on them untouched unless the status moves the turn); a record that does change them takes
  // updateTurnWhole.
  updateTurn:
    'UPDATE wardrik_turns SET status = ?, version = ?, data = ?, updated_at = ? WHERE run = ? AND version = ? AND agent = ? AND created_at = ?',
  updateTurnWhole:
    'UPDATE wardrik_turns SET agent = ?, status = ?, version = ?, data = ?, created_at = ?, updated_at = ? WHERE run = ? AND version = ?',
  // Oldest first; rowid breaks ties in the order the turns were first written.
  listTurns: `SELECT ${turnColumns} FROM wardrik_turns ORDER BY created_at, rowid LIMIT +?`,
  // An agent's turns (no index of turns by agent is kept, migration 10): its finished ones through the
  // partial index of finished turns by agent, the others through the index by status, then in order.
  listTurnsByAgent: `WITH wanted (agent) AS (SELECT ?)
     SELECT ${turnColumns} FROM (
       SELECT ${turnColumns}, rowid AS seq FROM wardrik_turns
         WHERE agent = (SELECT agent FROM wanted) AND status IN ('done', 'failed', 'budget_spent')
       UNION ALL
       SELECT ${turnColumns}, rowid AS seq FROM wardrik_turns
         WHERE status IN ('running', 'parked') AND agent = (SELECT agent FROM wanted))
     ORDER BY created_at, seq LIMIT +?`,
  listTurnsByStatus: `SELECT ${turnColumns} FROM wardrik_turns WHERE status = +? ORDER BY created_at, rowid LIMIT +?`,
  listTurnsByAgentStatus: `WITH wanted (agent, status) AS (SELECT ?, ?)
     SELECT ${turnColumns} FROM (
       SELECT ${turnColumns}, rowid AS seq FROM wardrik_turns
         WHERE agent = (SELECT agent FROM wanted) AND status IN ('done', 'failed', 'budget_spent')
           AND status = (SELECT status FROM wanted)
       UNION ALL
       SELECT ${turnColumns}, rowid AS seq FROM wardrik_turns
         WHERE status = (SELECT status FROM wanted) AND status IN ('running', 'parked')
           AND agent = (SELECT agent FROM wanted))
     ORDER BY created_at, seq LIMIT +?`,
  // A step is the row (no << 32) + idx of its run's number (migration 9); nothing is inserted while the
  // run has no number yet, which numberRun then gives it.
  appendStep: `INSERT INTO wardrik_steps (id, data, created_at) SELECT (no << 32) + ?, ?, ? FROM wardrik_step_runs WHERE run = ?
     ON CONFLICT DO NOTHING`,
  // One more than the highest run number, the high bits of the last step row (migration 14): a seek, not a scan.
  numberRun: `INSERT INTO wardrik_step_runs (run, no) VALUES (?, coalesce((SELECT max(id) FROM wardrik_steps) >> 32, 0) + 1)
     ON CONFLICT (run) DO NOTHING`,
  // The run's range of rowids, in order.
  listSteps: `SELECT r.run, s.id & 4294967295 AS idx, s.data, s.created_at FROM wardrik_step_runs r, wardrik_steps s
     WHERE r.run = +? AND s.id >= r.no << 32 AND s.id < (r.no + 1) << 32 ORDER BY s.id`,
  // Newest first through the partial index of finished turns (its WHERE repeats the index's).
  lastFinishedTurns: `SELECT ${turnColumns} FROM wardrik_turns
     WHERE agent = +? AND status IN ('done', 'failed', 'budget_spent') ORDER BY updated_at DESC, rowid DESC LIMIT +?`,
  // BINARY collation: byte order of UTF-8, the same as comparing code points.
  listMcpServers: 'SELECT hub, name, options, updated_at FROM wardrik_mcp_servers WHERE hub = +? ORDER BY name',
  putMcpServer: `INSERT INTO wardrik_mcp_servers (hub, name, options, updated_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (hub, name) DO UPDATE SET options = excluded.options, updated_at = excluded.updated_at`,
  deleteMcpServer: 'DELETE FROM wardrik_mcp_servers WHERE hub = ? AND name = ?',
} as const;

export type SqliteStatements = { readonly [K in keyof typeof STATEMENTS]: SqliteStatement };

/** Prepares every statement once per connection. */
export function prepare(db: SqliteDatabase): SqliteStatements {
  return Object.fromEntries(
    Object.entries(STATEMENTS).map(([name, text]) => [name, db.prepare(text)]),
  ) as unknown as SqliteStatements;
}
