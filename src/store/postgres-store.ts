import type { Pool, PoolClient, PoolConfig, QueryResultRow } from 'pg';
import { ConfigurationError, StoreError } from '../errors.js';
import type { ToolAnswer } from '../tools/result.js';
import { type CallRow, callOf, callValues, encodeJson, type McpServerRow, mcpServerOf, runSummaryOf, type RunSummaryRow, SCHEMA_FIXES, schemaVersionError, type StepRow, stepOf, turnListing, turnOf, type TurnRow, turnValues } from './sql-rows.js';
import type { CallListOptions, CallRecord, CallState, ClaimOutcome, HoldOutcome, InboxRecord, InboxStatus, McpServerRecord, RememberedClaim, RememberedRecord, RunSummary, SpendHold, StepRecord, Store, TurnRecord, TurnStatus } from './store.js';

export interface PostgresStoreOptions {
  /** `postgres://user:password@host:port/database`; the password never appears in a message. */
  readonly url: string;
  /** The schema Wardrik's tables live in, created when missing: `wardrik`. Nodes that share runs share it. */
  readonly schema?: string;
  /** Connections in the pool: 10. */
  readonly maxConnections?: number;
  /** How long to wait for a connection before failing: 10 s. */
  readonly connectTimeoutMs?: number;
  /** Anything else for `pg.Pool` (ssl, application_name …); `url` and the two above win. */
  readonly pool?: PoolConfig;
}

/**
 * Each migration runs once, in order, in the transaction that records its version. `{s}` is the
 * schema. Never edit one that has shipped: add the next. Times are `double precision` milliseconds:
 * exact for any `Date.now()`, and a test clock with fractions does not fail the write. JSON columns
 * are `json`, not `jsonb`, which keeps the text as written (key order, `\u0000`) and is never queried.
 */
const MIGRATIONS: readonly string[] = [
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
];

/** The first key of the advisory lock that serialises migrations; the second is the schema's hash. */
const MIGRATION_LOCK = 0x5741_5244; // "WARD"
/** The first key of the advisory locks that make a claim on a remembered key, or a budget hold, one step. */
const STEP_LOCK = 0x5741_5245;

const CALL_COLUMNS = 'run, call, agent, tool, arguments::text AS arguments, idempotency_key, state, attempt, answer::text AS answer, inbox_id, updated_at, cost_micro_usd';
const TURN_COLUMNS = 'run, agent, status, version, data::text AS data, created_at, updated_at';


/**
 * The store for many nodes: PostgreSQL through a `pg` pool, loaded only when this store starts. Every
 * operation is one statement, so one round trip; compare-and-set is in its WHERE clause (or an
 * `ON CONFLICT DO NOTHING`), and PostgreSQL's row locks make exactly one of racing writers win.
 *
 * Lifecycle: `start()` connects and migrates (the first operation starts it too); `close()` ends the pool.
 */
export class PostgresStore implements Store {
  readonly schema: string;
  /** `host:port`, for messages: never the password. */
  readonly address: string;
  private readonly options: PostgresStoreOptions;
  private starting: Promise<Pool> | undefined;
  private pool: Pool | undefined;
  private closed = false;
  private readonly q: Record<keyof typeof STATEMENTS, string>;

  constructor(options: PostgresStoreOptions) {
    const schema = options.schema ?? 'wardrik';
    if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
      throw new ConfigurationError(
        `PostgreSQL store schema "${schema}" is not a plain lowercase identifier. Use letters, digits and "_" (at most 63), starting with a letter or "_", such as "wardrik".`,
      );
    }
    this.schema = schema;
    this.address = addressOf(options.url);
    this.options = options;
    this.q = Object.fromEntries(
      Object.entries(STATEMENTS).map(([name, text]) => [name, text.replaceAll('{s}', `"${schema}"`)]),
    ) as Record<keyof typeof STATEMENTS, string>;
  }

  /** Connects and applies missing migrations; resolves to this store. Safe to call more than once. */
  async start(): Promise<this> {
    await this.ready();
    return this;
  }

  async getCall(run: string, call: string): Promise<CallRecord | undefined> {
    const rows = await this.query<CallRow>('read a call', 'getCall', [run, call]);
    return rows[0] === undefined ? undefined : callOf(rows[0]);
  }

  async writeCall(record: CallRecord, expected: CallState | undefined): Promise<boolean> {
    const values = callValues(record);
    if (expected === undefined) return (await this.count('write a call', 'insertCall', values)) === 1;
    return (await this.count('write a call', 'updateCall', [...values, expected])) === 1;
  }

  async listCalls(options: CallListOptions): Promise<CallRecord[]> {
    const limit = options.limit ?? null;
    const rows =
      options.run === undefined
        ? await this.query<CallRow>('list calls', 'listCalls', [options.state, limit])
        : options.state === undefined
          ? await this.query<CallRow>('list calls', 'listRunCalls', [options.run, limit])
          : await this.query<CallRow>('list calls', 'listRunCallsInState', [options.run, options.state, limit]);
    return rows.map(callOf);
  }

  async listRuns(options: { readonly agent?: string; readonly limit?: number } = {}): Promise<RunSummary[]> {
    const rows = await this.query<RunSummaryRow>('list runs', 'listRuns', [options.agent ?? null, options.limit ?? null]);
    return rows.map(runSummaryOf);
  }

  async getInboxItem(id: string): Promise<InboxRecord | undefined> {
    const rows = await this.query<{ item: string }>('read an inbox item', 'getInbox', [id]);
    return rows[0] === undefined ? undefined : (JSON.parse(rows[0].item) as InboxRecord);
  }

  async listInbox(options: { readonly all?: boolean } = {}): Promise<InboxRecord[]> {
    const rows = await this.query<{ item: string }>('list the inbox', options.all === true ? 'listInboxAll' : 'listInboxPending', []);
    return rows.map((row) => JSON.parse(row.item) as InboxRecord);
  }

  async putInboxItem(item: InboxRecord): Promise<void> {
    await this.query('write an inbox item', 'putInbox', [item.id, item.status, item.createdAt, JSON.stringify(item)]);
  }

  async updateInboxItem(item: InboxRecord, expected: InboxStatus): Promise<boolean> {
    const values = [item.id, item.status, item.createdAt, JSON.stringify(item), expected];
    return (await this.count('update an inbox item', 'updateInbox', values)) === 1;
  }

  async claimRemembered(claim: RememberedClaim, now: number): Promise<ClaimOutcome> {
    return this.locked('claim a remembered key', `remember:${claim.key}`, async (run) => {
      const [row] = await run<RememberedRow>('getRemembered', [claim.key, now]);
      if (row !== undefined) return { claimed: false, remembered: rememberedOf(claim.key, row) };
      const [held] = await run<{ owner: string; digest: string }>('getClaim', [claim.key, now, claim.owner]);
      if (held !== undefined) return { claimed: false, heldBy: held.owner, digest: held.digest };
      await run('putClaim', [claim.key, claim.digest, claim.owner, claim.expiresAt]);
      return { claimed: true };
    });
  }

  async releaseRemembered(key: string, owner: string): Promise<void> {
    await this.query('release a remembered key', 'releaseClaim', [key, owner]);
  }

  async holdSpend(hold: SpendHold, now: number): Promise<HoldOutcome> {
    return this.locked('hold part of a budget', `spend:${hold.agent}`, async (run) => {
      await run('pruneHolds', [hold.agent, now]);
      const [sums] = await run<{ held: string; busy: string }>('sumHolds', [hold.agent, hold.tool]);
      if (Number(sums!.held) >= hold.budgetMicroUsd) return 'spent';
      const [cost] = hold.maxMicroUsd === undefined ? await run<{ max_micro_usd: string }>('getToolCost', [hold.tool]) : [];
      const microUsd = hold.maxMicroUsd ?? (cost === undefined ? undefined : Number(cost.max_micro_usd));
      if (microUsd === undefined && Number(sums!.busy) > 0) return 'busy';
      await run('putHold', [hold.agent, hold.id, hold.tool, microUsd ?? 0, microUsd !== undefined, hold.expiresAt]);
      return 'held';
    });
  }

  async releaseSpend(agent: string, id: string, tool: string, costMicroUsd: number | undefined): Promise<void> {
    await this.query('release a budget hold', 'deleteHold', [agent, id]);
    if (costMicroUsd !== undefined) await this.query('record a tool\'s cost', 'putToolCost', [tool, costMicroUsd]);
  }

  async getRemembered(key: string, now: number): Promise<RememberedRecord | undefined> {
    const [row] = await this.query<RememberedRow>('read a remembered result', 'getRemembered', [key, now]);
    return row === undefined ? undefined : rememberedOf(key, row);
  }

  async putRemembered(record: RememberedRecord): Promise<void> {
    // Under the key's lock: a claimer never sees the claim gone before the result is there.
    await this.locked('remember a result', `remember:${record.key}`, async (run) => {
      await run('putRemembered', [record.key, record.digest, JSON.stringify(record.answer), record.expiresAt]);
      await run('deleteClaim', [record.key]);
    });
  }

  async pruneRemembered(now: number): Promise<number> {
    await this.count('prune remembered keys', 'pruneClaims', [now]);
    return this.count('prune remembered results', 'pruneRemembered', [now]);
  }

  async addSpend(agent: string, microUsd: number): Promise<number> {
    const rows = await this.query<{ micro_usd: string }>('add spend', 'addSpend', [agent, microUsd]);
    // bigint comes back as text.
    return Number(rows[0]!.micro_usd);
  }

  async getSpend(agent: string): Promise<number> {
    const rows = await this.query<{ micro_usd: string }>('read spend', 'getSpend', [agent]);
    return Number(rows[0]?.micro_usd ?? 0);
  }

  async addLabels(run: string, labels: readonly string[]): Promise<readonly string[]> {
    if (labels.length === 0) return [];
    const wanted = [...new Set(labels)];
    const rows = await this.query<{ label: string }>('add labels', 'addLabels', [run, wanted]);
    // RETURNING gives no order guarantee: answer in the caller's order.
    const added = new Set(rows.map((row) => row.label));
    return wanted.filter((label) => added.has(label));
  }

  async getLabels(run: string): Promise<readonly string[]> {
    const rows = await this.query<{ label: string }>('read labels', 'getLabels', [run]);
    return rows.map((row) => row.label);
  }

  async leaseRun(run: string, node: string, now: number, ttlMs: number): Promise<boolean> {
    return (await this.count('lease a run', 'leaseRun', [run, node, now + ttlMs, now])) === 1;
  }

  async releaseRun(run: string, node: string): Promise<void> {
    await this.count('release a run', 'releaseRun', [run, node]);
  }

  async getTurn(run: string): Promise<TurnRecord | undefined> {
    const rows = await this.query<TurnRow>('read a turn', 'getTurn', [run]);
    return rows[0] === undefined ? undefined : turnOf(rows[0]);
  }

  async writeTurn(record: TurnRecord, expected: number | undefined): Promise<boolean> {
    const values = turnValues(record);
    if (expected === undefined) return (await this.count('write a turn', 'insertTurn', values)) === 1;
    return (await this.count('write a turn', 'updateTurn', [...values, expected])) === 1;
  }

  async listTurns(options: { readonly agent?: string; readonly status?: TurnStatus; readonly limit?: number }): Promise<TurnRecord[]> {
    const filters = [options.agent, options.status].filter((value) => value !== undefined);
    const rows = await this.query<TurnRow>('list turns', turnListing(options), [...filters, options.limit ?? null]);
    return rows.map(turnOf);
  }

  async appendStep(step: StepRecord): Promise<boolean> {
    return (await this.count('append a step', 'appendStep', [step.run, step.index, encodeJson(step.data), step.createdAt])) === 1;
  }

  async listSteps(run: string): Promise<StepRecord[]> {
    return (await this.query<StepRow>('list steps', 'listSteps', [run])).map(stepOf);
  }

  async listMcpServers(hub: string): Promise<McpServerRecord[]> {
    return (await this.query<McpServerRow>('list MCP servers', 'listMcpServers', [hub])).map(mcpServerOf);
  }

  async putMcpServer(record: McpServerRecord): Promise<void> {
    await this.count('write an MCP server', 'putMcpServer', [record.hub, record.name, encodeJson(record.options), record.updatedAt]);
  }

  async deleteMcpServer(hub: string, name: string): Promise<boolean> {
    return (await this.count('delete an MCP server', 'deleteMcpServer', [hub, name])) === 1;
  }

  async close(): Promise<void> {
    this.closed = true;
    const pool = this.pool ?? (await this.starting?.catch(() => undefined));
    this.pool = undefined;
    if (pool !== undefined && !pool.ended) await pool.end();
  }

  private ready(): Promise<Pool> {
    if (this.pool !== undefined) return Promise.resolve(this.pool);
    if (this.closed) return Promise.reject(new StoreError(`PostgreSQL store (schema "${this.schema}" at ${this.address}) is closed. Open a new store to use it again.`));
    // A failed start is not cached: the next operation tries again (the database may be back).
    this.starting ??= this.connect().then(
      (pool) => (this.pool = pool),
      (error: unknown) => {
        this.starting = undefined;
        throw error;
      },
    );
    return this.starting;
  }

  private async connect(): Promise<Pool> {
    let pg: typeof import('pg').default;
    try {
      pg = (await import('pg')).default;
    } catch (error) {
      throw new ConfigurationError('The PostgreSQL store needs the "pg" package, which is not installed. Install pg 8, or use a "sqlite:" store.', { cause: error });
    }
    const pool = new pg.Pool({
      ...this.options.pool,
      connectionString: this.options.url,
      max: this.options.maxConnections ?? this.options.pool?.max ?? 10,
      connectionTimeoutMillis: this.options.connectTimeoutMs ?? 10_000,
    });
    // An idle connection that drops (server restart) is reported here; without a listener it would
    // crash the process. The next query takes a fresh connection, or fails with a StoreError.
    pool.on('error', () => undefined);
    try {
      await this.migrate(pool);
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw this.storeError('start', error);
    }
    return pool;
  }

  // Inside one transaction holding an advisory lock on the schema's name: two nodes starting together
  // take turns, and the second finds the migrations done.
  private async migrate(pool: Pool): Promise<void> {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [MIGRATION_LOCK, this.schema]);
      const s = `"${this.schema}"`;
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
      await client.query(`CREATE TABLE IF NOT EXISTS ${s}.wardrik_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
      const { rows } = await client.query<{ version: number | null }>(`SELECT max(version) AS version FROM ${s}.wardrik_migrations`);
      const version = rows[0]?.version ?? 0;
      if (version > MIGRATIONS.length) throw schemaVersionError(version, MIGRATIONS.length);
      for (let next = version + 1; next <= MIGRATIONS.length; next++) {
        await client.query(MIGRATIONS[next - 1]!.replaceAll('{s}', s));
        await client.query(`INSERT INTO ${s}.wardrik_migrations (version) VALUES ($1)`, [next]);
      }
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  /**
   * Runs `work` in one transaction holding an advisory lock on `name` (a remembered key, an agent), so
   * steps that read then write (a claim, a budget hold) are atomic: racing nodes take turns.
   */
  private async locked<T>(action: string, name: string, work: (run: <R extends QueryResultRow>(statement: keyof typeof STATEMENTS, values: unknown[]) => Promise<R[]>) => Promise<T>): Promise<T> {
    const pool = await this.ready();
    let client: PoolClient;
    try {
      client = await pool.connect();
    } catch (error) {
      throw this.storeError(action, error);
    }
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [STEP_LOCK, `${this.schema}:${name}`]);
      const result = await work(async <R extends QueryResultRow>(statement: keyof typeof STATEMENTS, values: unknown[]) =>
        (await client.query<R>({ name: `wardrik_${statement}`, text: this.q[statement], values })).rows,
      );
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw this.storeError(action, error);
    } finally {
      client.release();
    }
  }

  private async query<R extends QueryResultRow>(action: string, statement: keyof typeof STATEMENTS, values: unknown[]): Promise<R[]> {
    return (await this.execute<R>(action, statement, values)).rows;
  }

  private async count(action: string, statement: keyof typeof STATEMENTS, values: unknown[]): Promise<number> {
    return (await this.execute(action, statement, values)).rowCount ?? 0;
  }

  private async execute<R extends QueryResultRow>(action: string, statement: keyof typeof STATEMENTS, values: unknown[]) {
    const pool = await this.ready();
    try {
      // Named: each connection parses and plans the statement once, then only binds values.
      return await pool.query<R>({ name: `wardrik_${statement}`, text: this.q[statement], values });
    } catch (error) {
      throw this.storeError(action, error);
    }
  }

  private storeError(action: string, error: unknown): StoreError {
    if (error instanceof StoreError || error instanceof ConfigurationError) return error as StoreError;
    const code = typeof (error as { code?: unknown })?.code === 'string' ? (error as { code: string }).code : undefined;
    const cause = redactSecret(messageOf(error), this.options.url);
    const fix = (code === undefined ? undefined : FIXES[code] ?? FIXES[code.slice(0, 2)]) ?? FIXES.default!;
    return new StoreError(
      `PostgreSQL store (schema "${this.schema}" at ${this.address}) could not ${action}: ${cause}${code === undefined ? '' : ` (${code})`}. Fix: ${fix}.`,
      { cause: error },
    );
  }
}

/** One statement per operation; `{s}` is the quoted schema. */
const STATEMENTS = {
  getCall: `SELECT ${CALL_COLUMNS} FROM {s}.calls WHERE run = $1 AND call = $2`,
  insertCall: `INSERT INTO {s}.calls (run, call, agent, tool, arguments, idempotency_key, state, attempt, answer, inbox_id, updated_at, cost_micro_usd)
    VALUES ($1, $2, $3, $4, $5::json, $6, $7, $8, $9::json, $10, $11, $12) ON CONFLICT (run, call) DO NOTHING`,
  updateCall: `UPDATE {s}.calls SET agent = $3, tool = $4, arguments = $5::json, idempotency_key = $6, state = $7, attempt = $8,
    answer = $9::json, inbox_id = $10, updated_at = $11, cost_micro_usd = $12
    WHERE run = $1 AND call = $2 AND state = $13 AND (state <> 'started' OR $7 <> 'started' OR attempt < $8)`,
  listCalls: `SELECT ${CALL_COLUMNS} FROM {s}.calls WHERE state = $1 ORDER BY updated_at, seq LIMIT $2`,
  // A run's calls in the order first written (an update keeps the seq).
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
  putInbox: `INSERT INTO {s}.inbox (id, status, created_at, item) VALUES ($1, $2, $3, $4::json)
    ON CONFLICT (id) DO UPDATE SET status = EXCLUDED.status, created_at = EXCLUDED.created_at, item = EXCLUDED.item`,
  updateInbox: 'UPDATE {s}.inbox SET status = $2, created_at = $3, item = $4::json WHERE id = $1 AND status = $5',
  getRemembered: 'SELECT digest, answer::text AS answer, expires_at FROM {s}.remembered WHERE key = $1 AND expires_at > $2',
  putRemembered: `INSERT INTO {s}.remembered (key, digest, answer, expires_at) VALUES ($1, $2, $3::json, $4)
    ON CONFLICT (key) DO UPDATE SET digest = EXCLUDED.digest, answer = EXCLUDED.answer, expires_at = EXCLUDED.expires_at`,
  pruneRemembered: 'DELETE FROM {s}.remembered WHERE expires_at <= $1',
  // A live claim of another call (an expired one, or the caller's own, may be taken).
  getClaim: 'SELECT owner, digest FROM {s}.wardrik_remembered_claims WHERE key = $1 AND expires_at > $2 AND owner <> $3',
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
  // Taken when free, expired before $4 (now), or already ours; otherwise the upsert's WHERE leaves the
  // row alone and no row is returned. The conflicting row is locked, so of racing nodes exactly one wins.
  leaseRun: `INSERT INTO {s}.wardrik_leases AS leases (run, node, until) VALUES ($1, $2, $3)
    ON CONFLICT (run) DO UPDATE SET node = EXCLUDED.node, until = EXCLUDED.until
    WHERE leases.node = EXCLUDED.node OR leases.until < $4 RETURNING run`,
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
  // COLLATE "C": code point order whatever the database's locale, as MemoryStore and SQLite sort.
  listMcpServers: `SELECT hub, name, options::text AS options, updated_at FROM {s}.wardrik_mcp_servers
    WHERE hub = $1 ORDER BY name COLLATE "C"`,
  putMcpServer: `INSERT INTO {s}.wardrik_mcp_servers (hub, name, options, updated_at) VALUES ($1, $2, $3::json, $4)
    ON CONFLICT (hub, name) DO UPDATE SET options = EXCLUDED.options, updated_at = EXCLUDED.updated_at`,
  deleteMcpServer: 'DELETE FROM {s}.wardrik_mcp_servers WHERE hub = $1 AND name = $2',
} as const;

interface RememberedRow {
  digest: string;
  answer: string;
  expires_at: number;
}

function rememberedOf(key: string, row: RememberedRow): RememberedRecord {
  return { key, digest: row.digest, answer: JSON.parse(row.answer) as ToolAnswer, expiresAt: row.expires_at };
}

/** What to do, by SQLSTATE (or its class, the first two characters) or Node's socket error code. */
const FIXES: Readonly<Record<string, string>> = {
  ...SCHEMA_FIXES,
  ECONNREFUSED: 'nothing is listening there; start PostgreSQL, or correct the host and port in the store URL',
  ENOTFOUND: 'the host name does not resolve; correct the host in the store URL',
  EAI_AGAIN: 'the host name could not be resolved right now; check DNS, then retry',
  ETIMEDOUT: 'the server did not answer in time; check the network path and firewall, or raise connectTimeoutMs',
  ECONNRESET: 'the connection dropped; retry, and check the server log if it repeats',
  '28P01': 'the password was refused; correct the credentials in the store URL',
  '28000': 'the server refused this user; check pg_hba.conf and the user in the store URL',
  '3D000': 'the database does not exist; create it, or correct the database name in the store URL',
  '42501': 'the user lacks a privilege; grant it CREATE on the database (for the schema) and use of the schema',
  '53': 'the server is out of resources (disk, memory or connections); free them, or lower maxConnections',
  '57': 'the server is shutting down or cancelled the statement; retry once it is back',
  '08': 'the connection failed; check that the server is up and reachable, then retry',
  XX: 'the server reported an internal error; check its log',
  default: 'check that PostgreSQL is reachable at that address and the store URL is right',
};

// Node reports a refused connection to a name with several addresses as an AggregateError with an
// empty message; its first error says what happened.
function messageOf(error: unknown): string {
  if (error instanceof AggregateError && error.message === '' && error.errors.length > 0) return messageOf(error.errors[0]);
  return error instanceof Error ? error.message || error.name : String(error);
}

function addressOf(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname || 'localhost'}:${parsed.port || '5432'}`;
  } catch {
    return 'an unparsable URL';
  }
}

/** Removes the URL's password from a driver message, in case one ever echoes it. */
function redactSecret(message: string, url: string): string {
  let password = '';
  try {
    password = decodeURIComponent(new URL(url).password);
  } catch {
    return message;
  }
  return password === '' ? message : message.replaceAll(password, '***');
}
