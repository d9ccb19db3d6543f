// The PostgreSQL store's schema (postgres-store.ts), one migration a version.
import { JOURNAL_DECIDED_BY, JOURNAL_ONE_ENCODING } from './postgres-journal-function.js';

/**
 * Each migration runs once, in order, in the transaction that records its version. `{s}` is the
 * schema. Never edit one that has shipped: add the next. Times are `double precision` milliseconds:
 * exact for any `Date.now()`, and a test clock with fractions does not fail the write. JSON columns
 * are `json`, not `jsonb`, which keeps the text as written (key order, `\u0000`) and is never queried
 * (an inbox item's run, which retention looks up, has a column of its own; PostgreSQL cannot take a
 * field out of JSON text holding `\u0000`, so an item migrated with one keeps a NULL run).
 */
export const MIGRATIONS: readonly string[] = [
  `CREATE TABLE {s}.calls (
     run text NOT NULL, call text NOT NULL, agent text NOT NULL, tool text NOT NULL,
     arguments json, idempotency_key text NOT NULL, state text NOT NULL, attempt integer NOT NULL,
     answer json, inbox_id text, updated_at double precision NOT NULL,
     seq bigint GENERATED ALWAYS AS IDENTITY,
     PRIMARY KEY (run, call));
   CREATE INDEX calls_by_state ON {s}.calls (state, updated_at, seq);
   CREATE TABLE {s}.inbox (
     id text PRIMARY KEY, status text NOT NULL, created_at double precision NOT NULL, item json NOT NULL,
     seq bigint GENERATED ALWAYS AS IDENTITY);
   CREATE INDEX inbox_by_status ON {s}.inbox (status, created_at, seq);
   CREATE TABLE {s}.remembered (key text PRIMARY KEY, digest text NOT NULL, answer json NOT NULL, expires_at double precision NOT NULL);
   CREATE INDEX remembered_by_expiry ON {s}.remembered (expires_at);
   CREATE TABLE {s}.spend (agent text PRIMARY KEY, usd double precision NOT NULL);
   CREATE TABLE {s}.labels (run text NOT NULL, label text NOT NULL, seq bigint GENERATED ALWAYS AS IDENTITY, PRIMARY KEY (run, label));`,
  // 2: run leases (D3), agent turns and their steps (D1), runtime MCP servers (M7). A turn's `seq`
  // orders turns created at the same time in the order they were first written.
  `CREATE TABLE {s}.wardrik_leases (run text PRIMARY KEY, node text NOT NULL, until double precision NOT NULL);
   CREATE TABLE {s}.wardrik_turns (
     run text PRIMARY KEY, agent text NOT NULL, status text NOT NULL, version integer NOT NULL, data json,
     created_at double precision NOT NULL, updated_at double precision NOT NULL,
     seq bigint GENERATED ALWAYS AS IDENTITY);
   CREATE INDEX wardrik_turns_by_agent ON {s}.wardrik_turns (agent, created_at, seq);
   CREATE INDEX wardrik_turns_by_status ON {s}.wardrik_turns (status, created_at, seq);
   CREATE TABLE {s}.wardrik_steps (
     run text NOT NULL, idx integer NOT NULL, data json, created_at double precision NOT NULL,
     PRIMARY KEY (run, idx));
   CREATE TABLE {s}.wardrik_mcp_servers (
     hub text NOT NULL, name text NOT NULL, options json, updated_at double precision NOT NULL,
     PRIMARY KEY (hub, name));`,
  // 3: what each call spent (CallRecord.costUsd), and a run's calls in the order first written (a
  // run's timeline, `listCalls({ run })`); the primary key orders by call id, not by time.
  `ALTER TABLE {s}.calls ADD COLUMN cost_usd double precision;
   CREATE INDEX calls_by_run ON {s}.calls (run, seq);`,
  // 4: money in integer micro-dollars (dollars as double precision added up to 0.9999999999999999 for
  // ten $0.10), claims on remembered keys (one run per key across nodes), budget holds and each tool's
  // cost so far.
  `ALTER TABLE {s}.calls ALTER COLUMN cost_usd TYPE bigint USING round(cost_usd * 1000000)::bigint;
   ALTER TABLE {s}.calls RENAME COLUMN cost_usd TO cost_micro_usd;
   ALTER TABLE {s}.spend ALTER COLUMN usd TYPE bigint USING round(usd * 1000000)::bigint;
   ALTER TABLE {s}.spend RENAME COLUMN usd TO micro_usd;
   CREATE TABLE {s}.wardrik_remembered_claims (key text PRIMARY KEY, digest text NOT NULL, owner text NOT NULL, expires_at double precision NOT NULL);
   CREATE TABLE {s}.wardrik_spend_holds (
     agent text NOT NULL, id text NOT NULL, tool text NOT NULL, micro_usd bigint NOT NULL, known boolean NOT NULL,
     expires_at double precision NOT NULL, PRIMARY KEY (agent, id));
   CREATE TABLE {s}.wardrik_tool_costs (tool text PRIMARY KEY, max_micro_usd bigint NOT NULL);`,
  // 5: finished turns by agent and by time, and inbox items by run, so an agent's history and
  // retention read only what they need.
  `CREATE INDEX wardrik_turns_finished ON {s}.wardrik_turns (agent, updated_at, seq) WHERE status IN ('done', 'failed', 'budget_spent');
   CREATE INDEX wardrik_turns_finished_at ON {s}.wardrik_turns (updated_at) WHERE status IN ('done', 'failed', 'budget_spent');
   ALTER TABLE {s}.inbox ADD COLUMN run text;
   UPDATE {s}.inbox SET run = item->>'run' WHERE strpos(item::text, '\\u0000') = 0;
   CREATE INDEX inbox_by_run ON {s}.inbox (run);`,
  // 6: one index entry less on both commits of a tool call, as SQLite's schema 6:
  // an answer changes a call's state, which calls_by_state holds, so it is never a HOT update and every
  // index of calls takes an entry. A run's calls come through the primary key (run, call), sorted by seq.
  // calls_by_state stays whole: retention finds old runs of calls only through it, and a partial index
  // of waiting calls with another for retention measured no faster (a BRIN index of first-write times
  // made a journal commit 2-4% slower; the commit's round trip and flush are most of its cost).
  `DROP INDEX {s}.calls_by_run;`,
  // 7: the journal's writes as a function, one statement a commit (postgres-statements.ts, writeJournal).
  // First writes go in together; each compare-and-set is the store's own single-row statement, so it
  // finds its row through the primary key whatever the tables' statistics, and every statement is
  // planned once a connection. (As one statement of data-modifying CTEs, a batch's updates were joins: on
  // a large table PostgreSQL planned the whole statement again at every commit, about 450 µs of the
  // server's time; on a new one it cached a plan that scanned every call.) Parts a batch does not use
  // cost nothing. A call's expected state is compared with IS NOT DISTINCT FROM (the same here: neither
  // is NULL), which no index answers: the call is found through its primary key, never by walking
  // calls_by_state's entries of that state, as a table not yet analyzed was planned.
  `CREATE FUNCTION {s}.wardrik_journal(
     c_run text[], c_call text[], c_agent text[], c_tool text[], c_arguments text[], c_key text[], c_state text[], c_attempt integer[],
     c_answer text[], c_inbox text[], c_updated double precision[], c_cost bigint[], c_expected text[],
     s_run text[], s_idx integer[], s_data text[], s_created double precision[],
     p_agent text[], p_micro_usd bigint[],
     l_run text[], l_label text[],
     t_run text[], t_agent text[], t_status text[], t_version integer[], t_data text[], t_created double precision[], t_updated double precision[], t_expected integer[],
     e_run text[], e_node text[], e_until double precision[], e_now double precision[],
     r_run text[], r_node text[])
   RETURNS TABLE (took_kind text, took_run text, took_key text) LANGUAGE plpgsql AS $journal$
   BEGIN
     -- Table by table in one order (calls, steps, spend, labels, turns, leases), as the statement of CTEs
     -- before it: a call's compare-and-set, which may wait on a row another node holds, comes before
     -- the rows other commits may need (a run's labels). First writes go in together, in the batch's
     -- order: an INSERT … ON CONFLICT finds its row through the arbiter index, however it is planned.
     IF array_position(c_expected, NULL) IS NOT NULL THEN
       RETURN QUERY INSERT INTO {s}.calls AS calls (run, call, agent, tool, arguments, idempotency_key, state, attempt, answer, inbox_id, updated_at, cost_micro_usd)
       SELECT run, call, agent, tool, arguments::json, idempotency_key, state, attempt, answer::json, inbox_id, updated_at, cost_micro_usd
       FROM unnest(c_run, c_call, c_agent, c_tool, c_arguments, c_key, c_state, c_attempt, c_answer, c_inbox, c_updated, c_cost, c_expected) WITH ORDINALITY
         AS w (run, call, agent, tool, arguments, idempotency_key, state, attempt, answer, inbox_id, updated_at, cost_micro_usd, expected, n)
       WHERE expected IS NULL ORDER BY n
       ON CONFLICT (run, call) DO NOTHING RETURNING 'call'::text, calls.run, calls.call;
     END IF;
     -- Compare-and-sets (and releases) one row at a time, each through its primary key: a join of the
     -- batch with the table would be planned by the tables' statistics.
     FOR i IN 1 .. cardinality(c_run) LOOP
       CONTINUE WHEN c_expected[i] IS NULL;
       UPDATE {s}.calls SET agent = c_agent[i], tool = c_tool[i], arguments = c_arguments[i]::json, idempotency_key = c_key[i], state = c_state[i],
         attempt = c_attempt[i], answer = c_answer[i]::json, inbox_id = c_inbox[i], updated_at = c_updated[i], cost_micro_usd = c_cost[i]
       WHERE run = c_run[i] AND call = c_call[i] AND state IS NOT DISTINCT FROM c_expected[i]
         AND (state <> 'started' OR c_state[i] <> 'started' OR attempt < c_attempt[i]);
       IF FOUND THEN took_kind := 'call'; took_run := c_run[i]; took_key := c_call[i]; RETURN NEXT; END IF;
     END LOOP;
     IF cardinality(s_run) > 0 THEN
       RETURN QUERY INSERT INTO {s}.wardrik_steps AS steps (run, idx, data, created_at)
       SELECT run, idx, data::json, created_at FROM unnest(s_run, s_idx, s_data, s_created) AS s (run, idx, data, created_at)
       ON CONFLICT (run, idx) DO NOTHING RETURNING 'step'::text, steps.run, steps.idx::text;
     END IF;
     -- Summed by agent (a statement updates a row once), agents in order so two commits lock rows alike.
     IF cardinality(p_agent) > 0 THEN
       INSERT INTO {s}.spend AS spend (agent, micro_usd)
       SELECT agent, sum(micro_usd)::bigint FROM unnest(p_agent, p_micro_usd) AS p (agent, micro_usd) GROUP BY agent ORDER BY agent
       ON CONFLICT (agent) DO UPDATE SET micro_usd = spend.micro_usd + EXCLUDED.micro_usd;
     END IF;
     IF cardinality(l_run) > 0 THEN
       INSERT INTO {s}.labels (run, label) SELECT run, label FROM unnest(l_run, l_label) WITH ORDINALITY AS l (run, label, n) ORDER BY n
       ON CONFLICT (run, label) DO NOTHING;
     END IF;
     IF array_position(t_expected, NULL) IS NOT NULL THEN
       RETURN QUERY INSERT INTO {s}.wardrik_turns AS turns (run, agent, status, version, data, created_at, updated_at)
       SELECT run, agent, status, version, data::json, created_at, updated_at
       FROM unnest(t_run, t_agent, t_status, t_version, t_data, t_created, t_updated, t_expected) AS t (run, agent, status, version, data, created_at, updated_at, expected)
       WHERE expected IS NULL
       ON CONFLICT (run) DO NOTHING RETURNING 'turn'::text, turns.run, ''::text;
     END IF;
     FOR i IN 1 .. cardinality(t_run) LOOP
       CONTINUE WHEN t_expected[i] IS NULL;
       UPDATE {s}.wardrik_turns SET agent = t_agent[i], status = t_status[i], version = t_version[i], data = t_data[i]::json,
         created_at = t_created[i], updated_at = t_updated[i]
       WHERE run = t_run[i] AND version = t_expected[i];
       IF FOUND THEN took_kind := 'turn'; took_run := t_run[i]; took_key := ''; RETURN NEXT; END IF;
     END LOOP;
     -- Taken when free, expired before now, or already the node's (leaseRun), runs in order so two commits lock rows alike.
     IF cardinality(e_run) > 0 THEN
       RETURN QUERY INSERT INTO {s}.wardrik_leases AS leases (run, node, until)
       SELECT run, node, until FROM unnest(e_run, e_node, e_until) AS e (run, node, until) ORDER BY run
       ON CONFLICT (run) DO UPDATE SET node = EXCLUDED.node, until = EXCLUDED.until
       WHERE leases.node = EXCLUDED.node OR leases.until < e_now[array_position(e_run, EXCLUDED.run)]
       RETURNING 'lease'::text, leases.run, ''::text;
     END IF;
     FOR i IN 1 .. cardinality(r_run) LOOP
       DELETE FROM {s}.wardrik_leases WHERE run = r_run[i] AND node = r_node[i];
     END LOOP;
   END $journal$;`,
  // 8: a journal commit of one batch that writes at most one row of each kind (a call's first write, a
  // call's compare-and-set, two steps, spend, a turn, a lease: an agent turn's every commit) is a call of
  // wardrik_journal_row, whose parameters are single values, not arrays. Same statements, same order and
  // answers as wardrik_journal; what it saves is the work around them: the server parses no arrays and
  // builds no set-returning scans of 13 unnested arrays, the client encodes no arrays, and the answer is
  // one integer, not a set of rows. Measured, the agent loop's commits through each function in turn:
  // server CPU 506 -> 405 µs a commit, client CPU 306 -> 242, the same WAL (the array function's own work
  // was more than its row writes). A batch it cannot hold (several calls, labels, a release) and a group
  // of batches still go through wardrik_journal.
  `CREATE FUNCTION {s}.wardrik_journal_row(
     i_run text, i_call text, i_agent text, i_tool text, i_arguments text, i_key text, i_state text, i_attempt integer,
     i_answer text, i_inbox text, i_updated double precision, i_cost bigint,
     u_run text, u_call text, u_agent text, u_tool text, u_arguments text, u_key text, u_state text, u_attempt integer,
     u_answer text, u_inbox text, u_updated double precision, u_cost bigint, u_expected text,
     a_run text, a_idx integer, a_data text, a_created double precision,
     b_run text, b_idx integer, b_data text, b_created double precision,
     p_agent text, p_micro_usd bigint,
     t_run text, t_agent text, t_status text, t_version integer, t_data text, t_created double precision, t_updated double precision, t_expected integer,
     e_run text, e_node text, e_until double precision, e_now double precision)
   RETURNS integer LANGUAGE plpgsql AS $row$
   DECLARE
     took integer := 0;
   BEGIN
     -- wardrik_journal's statements for one row each, in its order (calls, steps, spend, turns, leases);
     -- a NULL run (agent) leaves that part out. Answers which parts took, a bit each in this order.
     IF i_run IS NOT NULL THEN
       INSERT INTO {s}.calls (run, call, agent, tool, arguments, idempotency_key, state, attempt, answer, inbox_id, updated_at, cost_micro_usd)
       VALUES (i_run, i_call, i_agent, i_tool, i_arguments::json, i_key, i_state, i_attempt, i_answer::json, i_inbox, i_updated, i_cost)
       ON CONFLICT (run, call) DO NOTHING;
       IF FOUND THEN took := took | 1; END IF;
     END IF;
     IF u_run IS NOT NULL THEN
       UPDATE {s}.calls SET agent = u_agent, tool = u_tool, arguments = u_arguments::json, idempotency_key = u_key, state = u_state,
         attempt = u_attempt, answer = u_answer::json, inbox_id = u_inbox, updated_at = u_updated, cost_micro_usd = u_cost
       WHERE run = u_run AND call = u_call AND state IS NOT DISTINCT FROM u_expected
         AND (state <> 'started' OR u_state <> 'started' OR attempt < u_attempt);
       IF FOUND THEN took := took | 2; END IF;
     END IF;
     IF a_run IS NOT NULL THEN
       INSERT INTO {s}.wardrik_steps (run, idx, data, created_at) VALUES (a_run, a_idx, a_data::json, a_created) ON CONFLICT (run, idx) DO NOTHING;
       IF FOUND THEN took := took | 4; END IF;
     END IF;
     IF b_run IS NOT NULL THEN
       INSERT INTO {s}.wardrik_steps (run, idx, data, created_at) VALUES (b_run, b_idx, b_data::json, b_created) ON CONFLICT (run, idx) DO NOTHING;
       IF FOUND THEN took := took | 8; END IF;
     END IF;
     IF p_agent IS NOT NULL THEN
       INSERT INTO {s}.spend AS spend (agent, micro_usd) VALUES (p_agent, p_micro_usd)
       ON CONFLICT (agent) DO UPDATE SET micro_usd = spend.micro_usd + EXCLUDED.micro_usd;
       took := took | 16;
     END IF;
     IF t_run IS NOT NULL THEN
       IF t_expected IS NULL THEN
         INSERT INTO {s}.wardrik_turns (run, agent, status, version, data, created_at, updated_at)
         VALUES (t_run, t_agent, t_status, t_version, t_data::json, t_created, t_updated) ON CONFLICT (run) DO NOTHING;
       ELSE
         UPDATE {s}.wardrik_turns SET agent = t_agent, status = t_status, version = t_version, data = t_data::json,
           created_at = t_created, updated_at = t_updated
         WHERE run = t_run AND version = t_expected;
       END IF;
       IF FOUND THEN took := took | 32; END IF;
     END IF;
     IF e_run IS NOT NULL THEN
       INSERT INTO {s}.wardrik_leases AS leases (run, node, until) VALUES (e_run, e_node, e_until)
       ON CONFLICT (run) DO UPDATE SET node = EXCLUDED.node, until = EXCLUDED.until
       WHERE leases.node = EXCLUDED.node OR leases.until < e_now;
       IF FOUND THEN took := took | 64; END IF;
     END IF;
     RETURN took;
   END $row$;`,
  // 9: run leases on the server's clock (issue 27): a lease's end and the time it was compared with were
  // the writing node's Date.now(), so a node whose clock ran two minutes ahead saw every live lease as
  // expired and took runs over from nodes still running their calls. The journal functions take a lease's
  // length, not its end, and read now() (the transaction's start: a wait for a lock only makes a lease
  // look younger, never older); otherwise they are migrations 7 and 8, statement for statement.
  `DROP FUNCTION {s}.wardrik_journal(text[], text[], text[], text[], text[], text[], text[], integer[], text[], text[], double precision[], bigint[],
     text[], text[], integer[], text[], double precision[], text[], bigint[], text[], text[], text[], text[], text[], integer[], text[],
     double precision[], double precision[], integer[], text[], text[], double precision[], double precision[], text[], text[]);
   DROP FUNCTION {s}.wardrik_journal_row(text, text, text, text, text, text, text, integer, text, text, double precision, bigint,
     text, text, text, text, text, text, text, integer, text, text, double precision, bigint, text, text, integer, text, double precision,
     text, integer, text, double precision, text, bigint, text, text, text, integer, text, double precision, double precision, integer,
     text, text, double precision, double precision);
   CREATE FUNCTION {s}.wardrik_journal(
     c_run text[], c_call text[], c_agent text[], c_tool text[], c_arguments text[], c_key text[], c_state text[], c_attempt integer[],
     c_answer text[], c_inbox text[], c_updated double precision[], c_cost bigint[], c_expected text[],
     s_run text[], s_idx integer[], s_data text[], s_created double precision[],
     p_agent text[], p_micro_usd bigint[],
     l_run text[], l_label text[],
     t_run text[], t_agent text[], t_status text[], t_version integer[], t_data text[], t_created double precision[], t_updated double precision[], t_expected integer[],
     e_run text[], e_node text[], e_ttl double precision[],
     r_run text[], r_node text[])
   RETURNS TABLE (took_kind text, took_run text, took_key text) LANGUAGE plpgsql AS $journal$
   BEGIN
     -- Table by table in one order (calls, steps, spend, labels, turns, leases), as the statement of CTEs
     -- before it: a call's compare-and-set, which may wait on a row another node holds, comes before
     -- the rows other commits may need (a run's labels). First writes go in together, in the batch's
     -- order: an INSERT … ON CONFLICT finds its row through the arbiter index, however it is planned.
     IF array_position(c_expected, NULL) IS NOT NULL THEN
       RETURN QUERY INSERT INTO {s}.calls AS calls (run, call, agent, tool, arguments, idempotency_key, state, attempt, answer, inbox_id, updated_at, cost_micro_usd)
       SELECT run, call, agent, tool, arguments::json, idempotency_key, state, attempt, answer::json, inbox_id, updated_at, cost_micro_usd
       FROM unnest(c_run, c_call, c_agent, c_tool, c_arguments, c_key, c_state, c_attempt, c_answer, c_inbox, c_updated, c_cost, c_expected) WITH ORDINALITY
         AS w (run, call, agent, tool, arguments, idempotency_key, state, attempt, answer, inbox_id, updated_at, cost_micro_usd, expected, n)
       WHERE expected IS NULL ORDER BY n
       ON CONFLICT (run, call) DO NOTHING RETURNING 'call'::text, calls.run, calls.call;
     END IF;
     -- Compare-and-sets (and releases) one row at a time, each through its primary key: a join of the
     -- batch with the table would be planned by the tables' statistics.
     FOR i IN 1 .. cardinality(c_run) LOOP
       CONTINUE WHEN c_expected[i] IS NULL;
       UPDATE {s}.calls SET agent = c_agent[i], tool = c_tool[i], arguments = c_arguments[i]::json, idempotency_key = c_key[i], state = c_state[i],
         attempt = c_attempt[i], answer = c_answer[i]::json, inbox_id = c_inbox[i], updated_at = c_updated[i], cost_micro_usd = c_cost[i]
       WHERE run = c_run[i] AND call = c_call[i] AND state IS NOT DISTINCT FROM c_expected[i]
         AND (state <> 'started' OR c_state[i] <> 'started' OR attempt < c_attempt[i]);
       IF FOUND THEN took_kind := 'call'; took_run := c_run[i]; took_key := c_call[i]; RETURN NEXT; END IF;
     END LOOP;
     IF cardinality(s_run) > 0 THEN
       RETURN QUERY INSERT INTO {s}.wardrik_steps AS steps (run, idx, data, created_at)
       SELECT run, idx, data::json, created_at FROM unnest(s_run, s_idx, s_data, s_created) AS s (run, idx, data, created_at)
       ON CONFLICT (run, idx) DO NOTHING RETURNING 'step'::text, steps.run, steps.idx::text;
     END IF;
     -- Summed by agent (a statement updates a row once), agents in order so two commits lock rows alike.
     IF cardinality(p_agent) > 0 THEN
       INSERT INTO {s}.spend AS spend (agent, micro_usd)
       SELECT agent, sum(micro_usd)::bigint FROM unnest(p_agent, p_micro_usd) AS p (agent, micro_usd) GROUP BY agent ORDER BY agent
       ON CONFLICT (agent) DO UPDATE SET micro_usd = spend.micro_usd + EXCLUDED.micro_usd;
     END IF;
     IF cardinality(l_run) > 0 THEN
       INSERT INTO {s}.labels (run, label) SELECT run, label FROM unnest(l_run, l_label) WITH ORDINALITY AS l (run, label, n) ORDER BY n
       ON CONFLICT (run, label) DO NOTHING;
     END IF;
     IF array_position(t_expected, NULL) IS NOT NULL THEN
       RETURN QUERY INSERT INTO {s}.wardrik_turns AS turns (run, agent, status, version, data, created_at, updated_at)
       SELECT run, agent, status, version, data::json, created_at, updated_at
       FROM unnest(t_run, t_agent, t_status, t_version, t_data, t_created, t_updated, t_expected) AS t (run, agent, status, version, data, created_at, updated_at, expected)
       WHERE expected IS NULL
       ON CONFLICT (run) DO NOTHING RETURNING 'turn'::text, turns.run, ''::text;
     END IF;
     FOR i IN 1 .. cardinality(t_run) LOOP
       CONTINUE WHEN t_expected[i] IS NULL;
       UPDATE {s}.wardrik_turns SET agent = t_agent[i], status = t_status[i], version = t_version[i], data = t_data[i]::json,
         created_at = t_created[i], updated_at = t_updated[i]
       WHERE run = t_run[i] AND version = t_expected[i];
       IF FOUND THEN took_kind := 'turn'; took_run := t_run[i]; took_key := ''; RETURN NEXT; END IF;
     END LOOP;
     -- Taken when free, expired, or already the node's (leaseRun), on the server's clock; runs in order so two commits lock rows alike.
     IF cardinality(e_run) > 0 THEN
       RETURN QUERY INSERT INTO {s}.wardrik_leases AS leases (run, node, until)
       SELECT run, node, date_part('epoch', now()) * 1000 + ttl FROM unnest(e_run, e_node, e_ttl) AS e (run, node, ttl) ORDER BY run
       ON CONFLICT (run) DO UPDATE SET node = EXCLUDED.node, until = EXCLUDED.until
       WHERE leases.node = EXCLUDED.node OR leases.until < date_part('epoch', now()) * 1000
       RETURNING 'lease'::text, leases.run, ''::text;
     END IF;
     FOR i IN 1 .. cardinality(r_run) LOOP
       DELETE FROM {s}.wardrik_leases WHERE run = r_run[i] AND node = r_node[i];
     END LOOP;
   END $journal$;
   CREATE FUNCTION {s}.wardrik_journal_row(
     i_run text, i_call text, i_agent text, i_tool text, i_arguments text, i_key text, i_state text, i_attempt integer,
     i_answer text, i_inbox text, i_updated double precision, i_cost bigint,
     u_run text, u_call text, u_agent text, u_tool text, u_arguments text, u_key text, u_state text, u_attempt integer,
     u_answer text, u_inbox text, u_updated double precision, u_cost bigint, u_expected text,
     a_run text, a_idx integer, a_data text, a_created double precision,
     b_run text, b_idx integer, b_data text, b_created double precision,
     p_agent text, p_micro_usd bigint,
     t_run text, t_agent text, t_status text, t_version integer, t_data text, t_created double precision, t_updated double precision, t_expected integer,
     e_run text, e_node text, e_ttl double precision)
   RETURNS integer LANGUAGE plpgsql AS $row$
   DECLARE
     took integer := 0;
   BEGIN
     -- wardrik_journal's statements for one row each, in its order (calls, steps, spend, turns, leases);
     -- a NULL run (agent) leaves that part out. Answers which parts took, a bit each in this order.
     IF i_run IS NOT NULL THEN
       INSERT INTO {s}.calls (run, call, agent, tool, arguments, idempotency_key, state, attempt, answer, inbox_id, updated_at, cost_micro_usd)
       VALUES (i_run, i_call, i_agent, i_tool, i_arguments::json, i_key, i_state, i_attempt, i_answer::json, i_inbox, i_updated, i_cost)
       ON CONFLICT (run, call) DO NOTHING;
       IF FOUND THEN took := took | 1; END IF;
     END IF;
     IF u_run IS NOT NULL THEN
       UPDATE {s}.calls SET agent = u_agent, tool = u_tool, arguments = u_arguments::json, idempotency_key = u_key, state = u_state,
         attempt = u_attempt, answer = u_answer::json, inbox_id = u_inbox, updated_at = u_updated, cost_micro_usd = u_cost
       WHERE run = u_run AND call = u_call AND state IS NOT DISTINCT FROM u_expected
         AND (state <> 'started' OR u_state <> 'started' OR attempt < u_attempt);
       IF FOUND THEN took := took | 2; END IF;
     END IF;
     IF a_run IS NOT NULL THEN
       INSERT INTO {s}.wardrik_steps (run, idx, data, created_at) VALUES (a_run, a_idx, a_data::json, a_created) ON CONFLICT (run, idx) DO NOTHING;
       IF FOUND THEN took := took | 4; END IF;
     END IF;
     IF b_run IS NOT NULL THEN
       INSERT INTO {s}.wardrik_steps (run, idx, data, created_at) VALUES (b_run, b_idx, b_data::json, b_created) ON CONFLICT (run, idx) DO NOTHING;
       IF FOUND THEN took := took | 8; END IF;
     END IF;
     IF p_agent IS NOT NULL THEN
       INSERT INTO {s}.spend AS spend (agent, micro_usd) VALUES (p_agent, p_micro_usd)
       ON CONFLICT (agent) DO UPDATE SET micro_usd = spend.micro_usd + EXCLUDED.micro_usd;
       took := took | 16;
     END IF;
     IF t_run IS NOT NULL THEN
       IF t_expected IS NULL THEN
         INSERT INTO {s}.wardrik_turns (run, agent, status, version, data, created_at, updated_at)
         VALUES (t_run, t_agent, t_status, t_version, t_data::json, t_created, t_updated) ON CONFLICT (run) DO NOTHING;
       ELSE
         UPDATE {s}.wardrik_turns SET agent = t_agent, status = t_status, version = t_version, data = t_data::json,
           created_at = t_created, updated_at = t_updated
         WHERE run = t_run AND version = t_expected;
       END IF;
       IF FOUND THEN took := took | 32; END IF;
     END IF;
     IF e_run IS NOT NULL THEN
       INSERT INTO {s}.wardrik_leases AS leases (run, node, until) VALUES (e_run, e_node, date_part('epoch', now()) * 1000 + e_ttl)
       ON CONFLICT (run) DO UPDATE SET node = EXCLUDED.node, until = EXCLUDED.until
       WHERE leases.node = EXCLUDED.node OR leases.until < date_part('epoch', now()) * 1000;
       IF FOUND THEN took := took | 64; END IF;
     END IF;
     RETURN took;
   END $row$;`,
  JOURNAL_ONE_ENCODING,
  // The audit trail (audit-log.ts): hash-chained entries in position order. `data` is text, not json:
  // the entry's canonical JSON exactly as written.
  `CREATE TABLE {s}.wardrik_audit (
     seq bigint PRIMARY KEY, at double precision NOT NULL, kind text NOT NULL, data text NOT NULL,
     prev text NOT NULL, hash text NOT NULL, signature text);`,
  JOURNAL_DECIDED_BY,
];
