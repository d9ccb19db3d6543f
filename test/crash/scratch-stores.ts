import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { DatabaseSync } from 'node:sqlite';
import Database from 'better-sqlite3';
import pg from 'pg';

export const POSTGRES_URL = process.env.WARDRIK_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/**
 * Fresh stores for one test file, as URLs: a new SQLite file, or a new PostgreSQL schema, each time a
 * maker is called; `dir` holds the files (and whatever else the file writes); `schema` names a new
 * PostgreSQL schema for a test that opens the store itself. All are removed after the file.
 */
export function scratchStores(name: string): {
  readonly dir: string;
  readonly stores: readonly [string, () => string][];
  readonly schema: () => string;
} {
  const dir = mkdtempSync(join(tmpdir(), `wardrik-${name}-`));
  const schemas: string[] = [];
  after(async () => {
    rmSync(dir, { recursive: true, force: true });
    if (schemas.length === 0) return;
    const client = new pg.Client({ connectionString: POSTGRES_URL });
    await client.connect();
    for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client.end();
  });
  const schema = (): string => {
    const made = `wardrik_${name.replaceAll('-', '_')}_${randomBytes(4).toString('hex')}`;
    schemas.push(made);
    return made;
  };
  const stores: [string, () => string][] = [
    ['SQLite', () => `sqlite:${join(dir, `${randomBytes(4).toString('hex')}.db`)}`],
    // The default driver is Node's own node:sqlite; the same tests over the better-sqlite3 driver.
    [
      'SQLite on better-sqlite3',
      () => `sqlite:${join(dir, `${randomBytes(4).toString('hex')}.db`)}?driver=better-sqlite3`,
    ],
    ['PostgreSQL', () => `${POSTGRES_URL}?schema=${schema()}`],
  ];
  return { dir, stores, schema };
}

/**
 * Ends every run lease in the store at `url` (`sqlite:…` or a PostgreSQL URL with `?schema=`), as if their
 * length had passed on the store's clock: the leases of a node killed with SIGKILL, or of one that stopped
 * answering. The store's clock is the host's or the server's, so a test cannot wait it out.
 */
export async function lapseLeases(url: string): Promise<void> {
  if (url.startsWith('sqlite:')) {
    const db = openSqliteUrl(url);
    try {
      db.exec('UPDATE wardrik_leases SET until = 0');
    } finally {
      db.close();
    }
    return;
  }
  const schema = new URL(url).searchParams.get('schema');
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    await client.query(`UPDATE "${schema}".wardrik_leases SET until = 0`);
  } finally {
    await client.end();
  }
}

/**
 * A connection of its own to the file of a `sqlite:` store URL, through the store's driver (node:sqlite
 * unless `?driver=better-sqlite3`): two copies of SQLite in one process do not see each other's locks, and
 * closing a file in one drops the other's (SQLite's "multiple copies" warning), so a test that opens the
 * file beside an open store uses the store's copy.
 */
export function openSqliteUrl(url: string): {
  exec(sql: string): void;
  prepare(sql: string): { get(...params: string[]): unknown };
  close(): void;
} {
  const [path, query = ''] = url.slice('sqlite:'.length).split('?') as [string, string?];
  return new URLSearchParams(query).get('driver') === 'better-sqlite3' ? new Database(path) : new DatabaseSync(path);
}
