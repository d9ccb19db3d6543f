// The SQL of the PostgreSQL store (postgres-store.ts), apart from its migrations.

const CALL_COLUMNS =
  'run, call, agent, tool, arguments::text AS arguments, idempotency_key, state, attempt, answer::text AS answer, inbox_id, updated_at, cost_micro_usd';
const TURN_COLUMNS = 'run, agent, status, version, data::text AS data, created_at, updated_at';

/** A run may go when nothing in it waits (no parked or started call) and nothing in it was written since $1. */
const QUIET = `NOT EXISTS (SELECT 1 FROM {s}.calls c WHERE c.run = r.run AND (c.state IN ('parked', 'started') OR c.updated_at >= $1))`;

/** One statement per operation; `{s}` is the quoted schema. */
export const STATEMENTS = {
  getCall: `SELECT ${CALL_COLUMNS} FROM {s}.calls WHERE run = $1 AND call = $2`,
  insertCall: `INSERT INTO {s}.calls (run, call, agent, tool, arguments, idempotency_key, state, attempt, answer, inbox_id, updated_at, cost_micro_usd)
    VALUES ($1, $2, $3, $4, $5::json, $6, $7, $8, $9::json, $10, $11, $12) ON CONFLICT (run, call) DO NOTHING`,
  // IS NOT DISTINCT FROM ($13 is never NULL): not an index condition, so the call is found through its
  // primary key, not through calls_by_state (as a table not yet analyzed was planned).
  updateCall: `UPDATE {s}.calls SET agent = $3, tool = $4, arguments = $5::json, idempotency_key = $6, state = $7, attempt = $8,
    answer = $9::json, inbox_id = $10, updated_at = $11, cost_micro_usd = $12
    WHERE run = $1 AND call = $2 AND state IS NOT DISTINCT FROM $13 AND (state <> 'started' OR $7 <> 'started' OR attempt < $8)`,
  listCalls: `SELECT ${CALL_COLUMNS} FROM {s}.calls WHERE state = $1 ORDER BY updated_at, seq LIMIT $2`,
  // A run's calls in the order first written (an update keeps the seq), through the primary key.
  listRunCalls: `SELECT ${CALL_COLUMNS} FROM {s}.calls WHERE run = $1 ORDER BY seq LIMIT $2`,
  listRunCallsInState: `SELECT ${CALL_COLUMNS} FROM {s}.calls WHERE run = $1 AND state = $2 ORDER BY seq LIMIT $3`,
  // Runs from their calls and their turns, most recent first; a turn's row alone says its status.
  listRuns: `SELECT run, max(agent) AS agent, max(status) AS status, sum(calls) AS calls, sum(parked) AS parked,
      sum(cost) AS cost_micro_usd, min(first_at) AS first_at, max(last_at) AS last_at
    FROM (
      SELECT run, agent, NULL::text AS status, count(*) AS calls, count(*) FILTER (WHERE state = 'parked') AS parked,
        sum(cost_micro_usd) AS cost, min(updated_at) AS first_at, max(updated_at) AS last_at
      FROM {s}.calls WHERE $1::text IS NULL OR agent = $1 GROUP BY run, agent
      UNION ALL
      SELECT run, agent, status, 0, 0, NULL::numeric, created_at, updated_at FROM {s}.wardrik_turns WHERE $1::text IS NULL OR agent = $1) AS parts
    GROUP BY run ORDER BY last_at DESC, run LIMIT $2`,
  getInbox: 'SELECT item::text AS item FROM {s}.inbox WHERE id = $1',
  listInboxPending: `SELECT item::text AS item FROM {s}.inbox WHERE status = 'pending' ORDER BY created_at, seq`,
  listInboxAll: 'SELECT item::text AS item FROM {s}.inbox ORDER BY created_at, seq',
  // An upsert keeps the item's `seq`, so replacing an item does not move it in the list.
  putInbox: `INSERT INTO {s}.inbox (id, status, created_at, item, run) VALUES ($1, $2, $3, $4::json, $5)
    ON CONFLICT (id) DO UPDATE SET status = EXCLUDED.status, created_at = EXCLUDED.created_at, item = EXCLUDED.item, run = EXCLUDED.run`,
  updateInbox: 'UPDATE {s}.inbox SET status = $2, created_at = $3, item = $4::json WHERE id = $1 AND status = $5',
  getRemembered:
    'SELECT digest, answer::text AS answer, expires_at FROM {s}.remembered WHERE key = $1 AND expires_at > $2',
  putRemembered: `INSERT INTO {s}.remembered (key, digest, answer, expires_at) VALUES ($1, $2, $3::json, $4)
    ON CONFLICT (key) DO UPDATE SET digest = EXCLUDED.digest, answer = EXCLUDED.answer, expires_at = EXCLUDED.expires_at`,
  pruneRemembered: 'DELETE FROM {s}.remembered WHERE expires_at <= $1',
  // A live claim of another call (an expired one, or the caller's own, may be taken).
  getClaim:
    'SELECT owner, digest FROM {s}.wardrik_remembered_claims WHERE key = $1 AND expires_at > $2 AND owner <> $3',
  putClaim: `INSERT INTO {s}.wardrik_remembered_claims (key, digest, owner, expires_at) VALUES ($1, $2, $3, $4)
    ON CONFLICT (key) DO UPDATE SET digest = EXCLUDED.digest, owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at`,
  deleteClaim: 'DELETE FROM {s}.wardrik_remembered_claims WHERE key = $1',
  releaseClaim: 'DELETE FROM {s}.wardrik_remembered_claims WHERE key = $1 AND owner = $2',
  pruneClaims: 'DELETE FROM {s}.wardrik_remembered_claims WHERE expires_at <= $1',
  addSpend: `INSERT INTO {s}.spend AS spend (agent, micro_usd) VALUES ($1, $2)
    ON CONFLICT (agent) DO UPDATE SET micro_usd = spend.micro_usd + EXCLUDED.micro_usd RETURNING micro_usd`,
  getSpend: 'SELECT micro_usd FROM {s}.spend WHERE agent = $1',
  pruneHolds: 'DELETE FROM {s}.wardrik_spend_holds WHERE agent = $1 AND expires_at <= $2',
  // The agent's spend plus its holds, and how many calls of the tool hold without a known cost.
  sumHolds: `SELECT coalesce((SELECT micro_usd FROM {s}.spend WHERE agent = $1), 0) + coalesce(sum(micro_usd), 0) AS held,
      count(*) FILTER (WHERE tool = $2 AND NOT known) AS busy
    FROM {s}.wardrik_spend_holds WHERE agent = $1`,
  putHold: `INSERT INTO {s}.wardrik_spend_holds (agent, id, tool, micro_usd, known, expires_at) VALUES ($1, $2, $3, $4, $5, $6)
    ON CONFLICT (agent, id) DO UPDATE SET tool = EXCLUDED.tool, micro_usd = EXCLUDED.micro_usd, known = EXCLUDED.known, expires_at = EXCLUDED.expires_at`,
  deleteHold: 'DELETE FROM {s}.wardrik_spend_holds WHERE agent = $1 AND id = $2',
  getToolCost: 'SELECT max_micro_usd FROM {s}.wardrik_tool_costs WHERE tool = $1',
  putToolCost: `INSERT INTO {s}.wardrik_tool_costs AS costs (tool, max_micro_usd) VALUES ($1, $2)
    ON CONFLICT (tool) DO UPDATE SET max_micro_usd = greatest(costs.max_micro_usd, EXCLUDED.max_micro_usd)`,
  addLabels: `INSERT INTO {s}.labels (run, label)
    SELECT $1, label FROM unnest($2::text[]) WITH ORDINALITY AS wanted (label, n) ORDER BY n
    ON CONFLICT (run, label) DO NOTHING RETURNING label`,
  getLabels: 'SELECT label FROM {s}.labels WHERE run = $1 ORDER BY seq',
  // Taken for $3 ms when free, expired, or already ours, on the server's clock (now(): never a node's, see
  // migration 9); otherwise the upsert's WHERE leaves the row alone and no row is returned. The conflicting
  // row is locked, so of racing nodes exactly one wins.
  leaseRun: `INSERT INTO {s}.wardrik_leases AS leases (run, node, until) VALUES ($1, $2, date_part('epoch', now()) * 1000 + $3)
    ON CONFLICT (run) DO UPDATE SET node = EXCLUDED.node, until = EXCLUDED.until
    WHERE leases.node = EXCLUDED.node OR leases.until < date_part('epoch', now()) * 1000 RETURNING run`,
  // leaseRun, only while call $4 is still started (the statement's snapshot: an answer committed before it began counts).
  leaseRunWhileStarted: `INSERT INTO {s}.wardrik_leases AS leases (run, node, until)
    SELECT $1, $2, date_part('epoch', now()) * 1000 + $3 WHERE EXISTS (SELECT 1 FROM {s}.calls WHERE run = $1 AND call = $4 AND state = 'started')
    ON CONFLICT (run) DO UPDATE SET node = EXCLUDED.node, until = EXCLUDED.until
    WHERE leases.node = EXCLUDED.node OR leases.until < date_part('epoch', now()) * 1000 RETURNING run`,
  releaseRun: 'DELETE FROM {s}.wardrik_leases WHERE run = $1 AND node = $2',
  getTurn: `SELECT ${TURN_COLUMNS} FROM {s}.wardrik_turns WHERE run = $1`,
  insertTurn: `INSERT INTO {s}.wardrik_turns (run, agent, status, version, data, created_at, updated_at)
    VALUES ($1, $2, $3, $4, $5::json, $6, $7) ON CONFLICT (run) DO NOTHING`,
  updateTurn: `UPDATE {s}.wardrik_turns SET agent = $2, status = $3, version = $4, data = $5::json, created_at = $6, updated_at = $7
    WHERE run = $1 AND version = $8`,
  // One statement per filter, so each can use its index (a generic plan of "$1 IS NULL OR agent = $1" cannot).
  listTurns: `SELECT ${TURN_COLUMNS} FROM {s}.wardrik_turns ORDER BY created_at, seq LIMIT $1`,
  listTurnsByAgent: `SELECT ${TURN_COLUMNS} FROM {s}.wardrik_turns WHERE agent = $1 ORDER BY created_at, seq LIMIT $2`,
  listTurnsByStatus: `SELECT ${TURN_COLUMNS} FROM {s}.wardrik_turns WHERE status = $1 ORDER BY created_at, seq LIMIT $2`,
  listTurnsByAgentStatus: `SELECT ${TURN_COLUMNS} FROM {s}.wardrik_turns WHERE agent = $1 AND status = $2 ORDER BY created_at, seq LIMIT $3`,
  appendStep: `INSERT INTO {s}.wardrik_steps (run, idx, data, created_at) VALUES ($1, $2, $3::json, $4)
    ON CONFLICT (run, idx) DO NOTHING`,
  listSteps: 'SELECT run, idx, data::text AS data, created_at FROM {s}.wardrik_steps WHERE run = $1 ORDER BY idx',
  // Newest first through the partial index of finished turns (its WHERE repeats the index's).
  lastFinishedTurns: `SELECT ${TURN_COLUMNS} FROM {s}.wardrik_turns
    WHERE agent = $1 AND status IN ('done', 'failed', 'budget_spent') ORDER BY updated_at DESC, seq DESC LIMIT $2`,
  // One commit of the journal: one statement, one round trip, one transaction (migration 9 has the
  // function). Its arrays, one value a write: calls ($1-$12 as insertCall's, $13 the expected states),
  // steps ($14-$17), spend ($18 agents, $19 micro-dollars), labels ($20 runs, $21 labels, one a label),
  // turns ($22-$28 as insertTurn's, $29 the expected versions), leases taken ($30 runs, $31 nodes,
  // $32 lengths in ms) and given up ($33 runs, $34 nodes). Each write is its namesake's statement
  // (insertCall or updateCall, appendStep, addSpend, addLabels, insertTurn or updateTurn, leaseRun,
  // releaseRun). Answers which calls, steps, turns and leases took.
  writeJournal: `SELECT * FROM {s}.wardrik_journal($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::integer[],
      $9::text[], $10::text[], $11::double precision[], $12::bigint[], $13::text[], $14::text[], $15::integer[], $16::text[], $17::double precision[],
      $18::text[], $19::bigint[], $20::text[], $21::text[], $22::text[], $23::text[], $24::text[], $25::integer[], $26::text[],
      $27::double precision[], $28::double precision[], $29::integer[], $30::text[], $31::text[], $32::double precision[],
      $33::text[], $34::text[]) AS took (kind, run, key)`,
  // One commit of one batch that writes at most one row of each kind (migrations 8, 9): the same writes as
  // writeJournal, as single values. Its parameters: a call's first write ($1-$12 as insertCall's), a call's
  // compare-and-set ($13-$24 as updateCall's, $25 the expected state), two steps ($26-$29, $30-$33), spend
  // ($34 agent, $35 micro-dollars), a turn ($36-$42 as insertTurn's, $43 the expected version or NULL to
  // insert) and a lease taken ($44 run, $45 node, $46 length in ms); a part whose run (agent) is NULL is
  // left out. Answers which parts took, a bit each in that order (1 the call's first write … 64 the lease).
  writeJournalRow: `SELECT {s}.wardrik_journal_row($1::text, $2::text, $3::text, $4::text, $5::text, $6::text, $7::text, $8::integer,
      $9::text, $10::text, $11::double precision, $12::bigint, $13::text, $14::text, $15::text, $16::text, $17::text, $18::text, $19::text,
      $20::integer, $21::text, $22::text, $23::double precision, $24::bigint, $25::text, $26::text, $27::integer, $28::text,
      $29::double precision, $30::text, $31::integer, $32::text, $33::double precision, $34::text, $35::bigint, $36::text, $37::text,
      $38::text, $39::integer, $40::text, $41::double precision, $42::double precision, $43::integer, $44::text, $45::text,
      $46::double precision) AS took`,
  // Retention: the runs that may go (see sqlite-retention.ts), then everything of theirs, in one statement.
  prune: `WITH runs AS (
      SELECT run FROM (
        (SELECT run FROM {s}.wardrik_turns r WHERE status IN ('done', 'failed', 'budget_spent') AND updated_at < $1 AND ${QUIET} LIMIT $2)
        UNION ALL
        (SELECT DISTINCT run FROM {s}.calls r WHERE state IN ('succeeded', 'failed') AND updated_at < $1
          AND NOT EXISTS (SELECT 1 FROM {s}.wardrik_turns t WHERE t.run = r.run) AND ${QUIET} LIMIT $2)) AS found
      LIMIT $2),
    calls AS (DELETE FROM {s}.calls WHERE run IN (SELECT run FROM runs) RETURNING 1),
    steps AS (DELETE FROM {s}.wardrik_steps WHERE run IN (SELECT run FROM runs) RETURNING 1),
    labels AS (DELETE FROM {s}.labels WHERE run IN (SELECT run FROM runs) RETURNING 1),
    turns AS (DELETE FROM {s}.wardrik_turns WHERE run IN (SELECT run FROM runs) RETURNING 1),
    leases AS (DELETE FROM {s}.wardrik_leases WHERE run IN (SELECT run FROM runs) OR until < $1 RETURNING 1),
    inbox AS (DELETE FROM {s}.inbox WHERE run IN (SELECT run FROM runs) AND status <> 'pending' RETURNING 1),
    holds AS (DELETE FROM {s}.wardrik_spend_holds WHERE expires_at < $1 RETURNING 1)
    SELECT (SELECT count(*) FROM runs) AS runs, (SELECT count(*) FROM turns) AS turns, (SELECT count(*) FROM steps) AS steps,
      (SELECT count(*) FROM calls) AS calls, (SELECT count(*) FROM inbox) AS inbox, (SELECT count(*) FROM labels) AS labels,
      (SELECT count(*) FROM leases) AS leases, (SELECT count(*) FROM holds) AS holds`,
  // COLLATE "C": code point order whatever the database's locale, as MemoryStore and SQLite sort.
  listMcpServers: `SELECT hub, name, options::text AS options, updated_at FROM {s}.wardrik_mcp_servers
    WHERE hub = $1 ORDER BY name COLLATE "C"`,
  putMcpServer: `INSERT INTO {s}.wardrik_mcp_servers (hub, name, options, updated_at) VALUES ($1, $2, $3::json, $4)
    ON CONFLICT (hub, name) DO UPDATE SET options = EXCLUDED.options, updated_at = EXCLUDED.updated_at`,
  deleteMcpServer: 'DELETE FROM {s}.wardrik_mcp_servers WHERE hub = $1 AND name = $2',
} as const;
