// The SQL of the PostgreSQL store (postgres-store.ts), apart from its migrations.

const CALL_COLUMNS =
  'run, call, agent, tool, arguments::text AS arguments, idempotency_key, state, attempt, answer::text AS answer, inbox_id, updated_at, cost_micro_usd, decided_by';
const AUDIT_COLUMNS = 'seq, at, kind, data, prev, hash, signature';
const TURN_COLUMNS = 'run, agent, status, version, data::text AS data, created_at, updated_at';

/** A run may go when nothing in it waits (no parked or started call) and nothing in it was written since $1. */
const QUIET = `NOT EXISTS (SELECT 1 FROM {s}.calls c WHERE c.run = r.run AND (c.state IN ('parked', 'started') OR c.updated_at >= $1))`;

/** One statement per operation; `{s}` is the quoted schema. */
export const STATEMENTS = {
  getCall: `SELECT ${CALL_COLUMNS} FROM {s}.calls WHERE run = $1 AND call = $2`,
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
  // An answer toward a quorum: only if nobody wrote the item since it was read.
  updateInboxRevision: `UPDATE {s}.inbox SET status = $2, created_at = $3, item = $4::json
    WHERE id = $1 AND status = $5 AND coalesce((item->>'revision')::bigint, 0) = $6`,
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
  getLabels: 'SELECT label FROM {s}.labels WHERE run = $1 ORDER BY seq',
  getTurn: `SELECT ${TURN_COLUMNS} FROM {s}.wardrik_turns WHERE run = $1`,
  // One statement per filter, so each can use its index (a generic plan of "$1 IS NULL OR agent = $1" cannot).
  listTurns: `SELECT ${TURN_COLUMNS} FROM {s}.wardrik_turns ORDER BY created_at, seq LIMIT $1`,
  listTurnsByAgent: `SELECT ${TURN_COLUMNS} FROM {s}.wardrik_turns WHERE agent = $1 ORDER BY created_at, seq LIMIT $2`,
  listTurnsByStatus: `SELECT ${TURN_COLUMNS} FROM {s}.wardrik_turns WHERE status = $1 ORDER BY created_at, seq LIMIT $2`,
  listTurnsByAgentStatus: `SELECT ${TURN_COLUMNS} FROM {s}.wardrik_turns WHERE agent = $1 AND status = $2 ORDER BY created_at, seq LIMIT $3`,
  listSteps: 'SELECT run, idx, data::text AS data, created_at FROM {s}.wardrik_steps WHERE run = $1 ORDER BY idx',
  // Newest first through the partial index of finished turns (its WHERE repeats the index's).
  lastFinishedTurns: `SELECT ${TURN_COLUMNS} FROM {s}.wardrik_turns
    WHERE agent = $1 AND status IN ('done', 'failed', 'budget_spent') ORDER BY updated_at DESC, seq DESC LIMIT $2`,
  // One commit of the journal: one statement, one round trip, one transaction (migrations 10 and 12 have the
  // function). Every write the store makes goes through it, alone or in a batch: the one encoding of each.
  // Its arrays, one value a write: calls ($1-$13 in callValues order, $14 the expected states, NULL for a
  // first write), steps ($15-$18), spend ($19 agents, $20 micro-dollars), labels ($21 runs, $22 labels,
  // one a label), turns ($23-$29 in turnValues order, $30 the expected versions), leases taken ($31 runs,
  // $32 nodes, $33 lengths in ms, $34 the call each is taken for while still started, or NULL) and given
  // up ($35 runs, $36 nodes). Answers which calls, steps, turns and leases took.
  writeJournal: `SELECT * FROM {s}.wardrik_journal($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::integer[],
      $9::text[], $10::text[], $11::double precision[], $12::bigint[], $13::text[], $14::text[], $15::text[], $16::integer[], $17::text[],
      $18::double precision[], $19::text[], $20::bigint[], $21::text[], $22::text[], $23::text[], $24::text[], $25::text[], $26::integer[],
      $27::text[], $28::double precision[], $29::double precision[], $30::integer[], $31::text[], $32::text[], $33::double precision[],
      $34::text[], $35::text[], $36::text[]) AS took (kind, run, key)`,
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
  // The audit trail (postgres-audit.ts), read and written under its advisory lock.
  auditHead: 'SELECT seq, hash FROM {s}.wardrik_audit ORDER BY seq DESC LIMIT 1',
  auditInsert: `INSERT INTO {s}.wardrik_audit (${AUDIT_COLUMNS}) SELECT * FROM unnest($1::bigint[], $2::double precision[],
    $3::text[], $4::text[], $5::text[], $6::text[], $7::text[])`,
  auditList: `SELECT ${AUDIT_COLUMNS} FROM {s}.wardrik_audit WHERE seq >= $1 AND at >= $2 ORDER BY seq LIMIT $3`,
  auditLastBefore: `SELECT ${AUDIT_COLUMNS} FROM {s}.wardrik_audit WHERE at < $1 AND seq < $2 ORDER BY seq DESC LIMIT 1`,
  auditDeleteThrough:
    'WITH gone AS (DELETE FROM {s}.wardrik_audit WHERE seq <= $1 RETURNING 1) SELECT count(*) AS removed FROM gone',
} as const;
