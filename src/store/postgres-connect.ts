import type { Pool, PoolConfig } from 'pg';
import { ConfigurationError } from '../errors.js';
import { MIGRATIONS } from './postgres-migrations.js';
import { schemaVersionError } from './sql-rows.js';

// How the PostgreSQL store (postgres-store.ts) starts: the driver loaded, the pool made, the schema migrated.

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

/** The first key of the advisory lock that serialises migrations; the second is the schema's hash. */
const MIGRATION_LOCK = 0x5741_5244; // "WARD"

/** Loads `pg` (only when a PostgreSQL store starts), makes the pool and migrates; `failure` wraps what went wrong. */
export async function connectPool(
  options: PostgresStoreOptions,
  schema: string,
  failure: (error: unknown) => Error,
): Promise<Pool> {
  let pg: typeof import('pg').default;
  try {
    pg = (await import('pg')).default;
  } catch (error) {
    throw new ConfigurationError(
      'The PostgreSQL store needs the "pg" package, which is not installed. Install pg 8, or use a "sqlite:" store.',
      { cause: error },
    );
  }
  const pool = new pg.Pool({
    ...options.pool,
    connectionString: options.url,
    max: options.maxConnections ?? options.pool?.max ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
  });
  // An idle connection that drops (server restart) is reported here; without a listener it would
  // crash the process. The next query takes a fresh connection, or fails with a StoreError.
  pool.on('error', () => undefined);
  try {
    await migrate(pool, schema);
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw failure(error);
  }
  return pool;
}

// Inside one transaction holding an advisory lock on the schema's name: two nodes starting together
// take turns, and the second finds the migrations done.
async function migrate(pool: Pool, schema: string): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [MIGRATION_LOCK, schema]);
    const s = `"${schema}"`;
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${s}.wardrik_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const { rows } = await client.query<{ version: number | null }>(
      `SELECT max(version) AS version FROM ${s}.wardrik_migrations`,
    );
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
