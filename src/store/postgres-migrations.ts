// The PostgreSQL store's schema (postgres-store.ts), one migration a version.

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
  // Its writes are the store's own single-row statements, one after the other: each compare-and-set finds
  // its row through the primary key whatever the tables' statistics, and the statement is planned once a
  // connection. (As one statement of data-modifying CTEs, a batch's updates were joins: on a large table
  // PostgreSQL planned the whole statement again at every commit, about 450 µs of the server's time; on a
  // new one it cached a plan that scanned every call.) Parts a batch does not use cost nothing. A call's
  // expected state is compared with IS NOT DISTINCT FROM (the same here: neither is NULL), which no index
  // answers: the call is found through its primary key, never by walking calls_by_state's entries of that
  // state, as a table not yet analyzed was planned.
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
     FOR i IN 1 .. cardinality(c_run) LOOP
       IF c_expected[i] IS NULL THEN
         INSERT INTO {s}.calls (run, call, agent, tool, arguments, idempotency_key, state, attempt, answer, inbox_id, updated_at, cost_micro_usd)
         VALUES (c_run[i], c_call[i], c_agent[i], c_tool[i], c_arguments[i]::json, c_key[i], c_state[i], c_attempt[i], c_answer[i]::json, c_inbox[i], c_updated[i], c_cost[i])
         ON CONFLICT (run, call) DO NOTHING;
       ELSE
         UPDATE {s}.calls SET agent = c_agent[i], tool = c_tool[i], arguments = c_arguments[i]::json, idempotency_key = c_key[i], state = c_state[i],
           attempt = c_attempt[i], answer = c_answer[i]::json, inbox_id = c_inbox[i], updated_at = c_updated[i], cost_micro_usd = c_cost[i]
         WHERE run = c_run[i] AND call = c_call[i] AND state IS NOT DISTINCT FROM c_expected[i]
           AND (state <> 'started' OR c_state[i] <> 'started' OR attempt < c_attempt[i]);
       END IF;
       IF FOUND THEN took_kind := 'call'; took_run := c_run[i]; took_key := c_call[i]; RETURN NEXT; END IF;
     END LOOP;
     FOR i IN 1 .. cardinality(s_run) LOOP
       INSERT INTO {s}.wardrik_steps (run, idx, data, created_at) VALUES (s_run[i], s_idx[i], s_data[i]::json, s_created[i]) ON CONFLICT (run, idx) DO NOTHING;
       IF FOUND THEN took_kind := 'step'; took_run := s_run[i]; took_key := s_idx[i]::text; RETURN NEXT; END IF;
     END LOOP;
     -- Summed by agent (a statement updates a row once), agents in order so two commits lock rows alike.
     IF cardinality(p_agent) > 0 THEN
       INSERT INTO {s}.spend AS spend (agent, micro_usd)
       SELECT agent, sum(micro_usd)::bigint FROM unnest(p_agent, p_micro_usd) AS p (agent, micro_usd) GROUP BY agent ORDER BY agent
       ON CONFLICT (agent) DO UPDATE SET micro_usd = spend.micro_usd + EXCLUDED.micro_usd;
     END IF;
     FOR i IN 1 .. cardinality(l_run) LOOP
       INSERT INTO {s}.labels (run, label) VALUES (l_run[i], l_label[i]) ON CONFLICT (run, label) DO NOTHING;
     END LOOP;
     FOR i IN 1 .. cardinality(t_run) LOOP
       IF t_expected[i] IS NULL THEN
         INSERT INTO {s}.wardrik_turns (run, agent, status, version, data, created_at, updated_at)
         VALUES (t_run[i], t_agent[i], t_status[i], t_version[i], t_data[i]::json, t_created[i], t_updated[i]) ON CONFLICT (run) DO NOTHING;
       ELSE
         UPDATE {s}.wardrik_turns SET agent = t_agent[i], status = t_status[i], version = t_version[i], data = t_data[i]::json,
           created_at = t_created[i], updated_at = t_updated[i]
         WHERE run = t_run[i] AND version = t_expected[i];
       END IF;
       IF FOUND THEN took_kind := 'turn'; took_run := t_run[i]; took_key := ''; RETURN NEXT; END IF;
     END LOOP;
     FOR i IN 1 .. cardinality(e_run) LOOP
       INSERT INTO {s}.wardrik_leases AS leases (run, node, until) VALUES (e_run[i], e_node[i], e_until[i])
       ON CONFLICT (run) DO UPDATE SET node = EXCLUDED.node, until = EXCLUDED.until
       WHERE leases.node = EXCLUDED.node OR leases.until < e_now[i];
       IF FOUND THEN took_kind := 'lease'; took_run := e_run[i]; took_key := ''; RETURN NEXT; END IF;
     END LOOP;
     FOR i IN 1 .. cardinality(r_run) LOOP
       DELETE FROM {s}.wardrik_leases WHERE run = r_run[i] AND node = r_node[i];
     END LOOP;
   END $journal$;`,
];
