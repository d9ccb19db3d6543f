// The PostgreSQL store's migration 10 (postgres-migrations.ts): the journal's writes in one function.

/**
 * 10: one encoding of each write (issue 29). Every write the store makes is now a batch through
 * wardrik_journal, a single write a batch of one: the store's own statements for a call's state, a step,
 * a turn, spend, labels and leases are gone, and so is wardrik_journal_row (migration 8), which wrote the
 * same rows again from 46 single values. What wardrik_journal lacked to stand for them all was a lease taken
 * for a call left in flight (recovery's, while that call is still started): it takes that call's id beside
 * each lease, NULL for an ordinary one. Otherwise it is migration 9's function, statement for statement.
 */
export const JOURNAL_ONE_ENCODING = `DROP FUNCTION {s}.wardrik_journal_row(text, text, text, text, text, text, text, integer, text, text, double precision, bigint,
     text, text, text, text, text, text, text, integer, text, text, double precision, bigint, text, text, integer, text, double precision,
     text, integer, text, double precision, text, bigint, text, text, text, integer, text, double precision, double precision, integer,
     text, text, double precision);
   DROP FUNCTION {s}.wardrik_journal(text[], text[], text[], text[], text[], text[], text[], integer[], text[], text[], double precision[], bigint[],
     text[], text[], integer[], text[], double precision[], text[], bigint[], text[], text[], text[], text[], text[], integer[], text[],
     double precision[], double precision[], integer[], text[], text[], double precision[], text[], text[]);
   CREATE FUNCTION {s}.wardrik_journal(
     c_run text[], c_call text[], c_agent text[], c_tool text[], c_arguments text[], c_key text[], c_state text[], c_attempt integer[],
     c_answer text[], c_inbox text[], c_updated double precision[], c_cost bigint[], c_expected text[],
     s_run text[], s_idx integer[], s_data text[], s_created double precision[],
     p_agent text[], p_micro_usd bigint[],
     l_run text[], l_label text[],
     t_run text[], t_agent text[], t_status text[], t_version integer[], t_data text[], t_created double precision[], t_updated double precision[], t_expected integer[],
     e_run text[], e_node text[], e_ttl double precision[], e_while text[],
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
     -- Taken when free, expired, or already the node's, on the server's clock; one taken for a call left in
     -- flight only while that call is still started (the statement's snapshot: an answer committed before it
     -- began counts). Runs in order so two commits lock rows alike.
     IF cardinality(e_run) > 0 THEN
       RETURN QUERY INSERT INTO {s}.wardrik_leases AS leases (run, node, until)
       SELECT e.run, e.node, date_part('epoch', now()) * 1000 + e.ttl FROM unnest(e_run, e_node, e_ttl, e_while) AS e (run, node, ttl, while_started)
       WHERE e.while_started IS NULL
         OR EXISTS (SELECT 1 FROM {s}.calls c WHERE c.run = e.run AND c.call = e.while_started AND c.state = 'started')
       ORDER BY e.run
       ON CONFLICT (run) DO UPDATE SET node = EXCLUDED.node, until = EXCLUDED.until
       WHERE leases.node = EXCLUDED.node OR leases.until < date_part('epoch', now()) * 1000
       RETURNING 'lease'::text, leases.run, ''::text;
     END IF;
     FOR i IN 1 .. cardinality(r_run) LOOP
       DELETE FROM {s}.wardrik_leases WHERE run = r_run[i] AND node = r_node[i];
     END LOOP;
   END $journal$;`;

/**
 * 12: the rule or policy that decided each call (CallRecord.decidedBy, issue 34), in a column of its own:
 * for every call, not only a parked one, whose answer kept it (`approval.decidedBy`); the column takes it
 * from there (not from an answer holding `\u0000`, whose fields PostgreSQL cannot take out). Calls
 * journaled before keep NULL: unknown. wardrik_journal takes each call's beside its cost (`c_decided`);
 * otherwise it is migration 10's function, statement for statement.
 */
export const JOURNAL_DECIDED_BY = `ALTER TABLE {s}.calls ADD COLUMN decided_by text;
   UPDATE {s}.calls SET decided_by = answer->'approval'->>'decidedBy'
     WHERE state = 'parked' AND answer IS NOT NULL AND strpos(answer::text, '\\u0000') = 0;
   DROP FUNCTION {s}.wardrik_journal(text[], text[], text[], text[], text[], text[], text[], integer[], text[], text[], double precision[], bigint[],
     text[], text[], integer[], text[], double precision[], text[], bigint[], text[], text[], text[], text[], text[], integer[], text[],
     double precision[], double precision[], integer[], text[], text[], double precision[], text[], text[], text[]);
   CREATE FUNCTION {s}.wardrik_journal(
     c_run text[], c_call text[], c_agent text[], c_tool text[], c_arguments text[], c_key text[], c_state text[], c_attempt integer[],
     c_answer text[], c_inbox text[], c_updated double precision[], c_cost bigint[], c_decided text[], c_expected text[],
     s_run text[], s_idx integer[], s_data text[], s_created double precision[],
     p_agent text[], p_micro_usd bigint[],
     l_run text[], l_label text[],
     t_run text[], t_agent text[], t_status text[], t_version integer[], t_data text[], t_created double precision[], t_updated double precision[], t_expected integer[],
     e_run text[], e_node text[], e_ttl double precision[], e_while text[],
     r_run text[], r_node text[])
   RETURNS TABLE (took_kind text, took_run text, took_key text) LANGUAGE plpgsql AS $journal$
   BEGIN
     -- Table by table in one order (calls, steps, spend, labels, turns, leases), as the statement of CTEs
     -- before it: a call's compare-and-set, which may wait on a row another node holds, comes before
     -- the rows other commits may need (a run's labels). First writes go in together, in the batch's
     -- order: an INSERT … ON CONFLICT finds its row through the arbiter index, however it is planned.
     IF array_position(c_expected, NULL) IS NOT NULL THEN
       RETURN QUERY INSERT INTO {s}.calls AS calls (run, call, agent, tool, arguments, idempotency_key, state, attempt, answer, inbox_id, updated_at, cost_micro_usd, decided_by)
       SELECT run, call, agent, tool, arguments::json, idempotency_key, state, attempt, answer::json, inbox_id, updated_at, cost_micro_usd, decided_by
       FROM unnest(c_run, c_call, c_agent, c_tool, c_arguments, c_key, c_state, c_attempt, c_answer, c_inbox, c_updated, c_cost, c_decided, c_expected) WITH ORDINALITY
         AS w (run, call, agent, tool, arguments, idempotency_key, state, attempt, answer, inbox_id, updated_at, cost_micro_usd, decided_by, expected, n)
       WHERE expected IS NULL ORDER BY n
       ON CONFLICT (run, call) DO NOTHING RETURNING 'call'::text, calls.run, calls.call;
     END IF;
     -- Compare-and-sets (and releases) one row at a time, each through its primary key: a join of the
     -- batch with the table would be planned by the tables' statistics.
     FOR i IN 1 .. cardinality(c_run) LOOP
       CONTINUE WHEN c_expected[i] IS NULL;
       UPDATE {s}.calls SET agent = c_agent[i], tool = c_tool[i], arguments = c_arguments[i]::json, idempotency_key = c_key[i], state = c_state[i],
         attempt = c_attempt[i], answer = c_answer[i]::json, inbox_id = c_inbox[i], updated_at = c_updated[i], cost_micro_usd = c_cost[i],
         decided_by = c_decided[i]
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
     -- Taken when free, expired, or already the node's, on the server's clock; one taken for a call left in
     -- flight only while that call is still started (the statement's snapshot: an answer committed before it
     -- began counts). Runs in order so two commits lock rows alike.
     IF cardinality(e_run) > 0 THEN
       RETURN QUERY INSERT INTO {s}.wardrik_leases AS leases (run, node, until)
       SELECT e.run, e.node, date_part('epoch', now()) * 1000 + e.ttl FROM unnest(e_run, e_node, e_ttl, e_while) AS e (run, node, ttl, while_started)
       WHERE e.while_started IS NULL
         OR EXISTS (SELECT 1 FROM {s}.calls c WHERE c.run = e.run AND c.call = e.while_started AND c.state = 'started')
       ORDER BY e.run
       ON CONFLICT (run) DO UPDATE SET node = EXCLUDED.node, until = EXCLUDED.until
       WHERE leases.node = EXCLUDED.node OR leases.until < date_part('epoch', now()) * 1000
       RETURNING 'lease'::text, leases.run, ''::text;
     END IF;
     FOR i IN 1 .. cardinality(r_run) LOOP
       DELETE FROM {s}.wardrik_leases WHERE run = r_run[i] AND node = r_node[i];
     END LOOP;
   END $journal$;`;
