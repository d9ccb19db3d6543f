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
];
