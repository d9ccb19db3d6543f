import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import { ConfigurationError } from '../errors.js';
import type { SqliteDatabase, SqliteOpenOptions, SqliteStatement, SqliteTransaction } from './sqlite-connection.js';

// The SQLite store over the better-sqlite3 package (an optional dependency): loaded only when a store asks
// for it, and its native module checked when the first file opens, so a module built for another Node is
// reported at start-up, with how to rebuild it, never at the first query.

type BetterSqlite3Class = typeof BetterSqlite3;

/** What a native module that cannot load says (a build for another Node, none at all, a broken file). */
const NATIVE_LOAD_FAILURE =
  /NODE_MODULE_VERSION|Could not locate the bindings file|compiled against a different Node\.js version|invalid ELF header|cannot open shared object file|file too short|Module did not self-register|undefined symbol/;

let betterSqlite3: BetterSqlite3Class | undefined;

function load(path: string): BetterSqlite3Class {
  if (betterSqlite3 !== undefined) return betterSqlite3;
  try {
    betterSqlite3 = createRequire(import.meta.url)('better-sqlite3') as BetterSqlite3Class;
    return betterSqlite3;
  } catch (error) {
    if ((error as { code?: unknown }).code === 'MODULE_NOT_FOUND')
      throw new ConfigurationError(
        `SQLite store "${path}" uses the better-sqlite3 driver, but the better-sqlite3 package is not installed. Fix: npm install better-sqlite3, or use Node's built-in driver ("sqlite:${path}?driver=node", Node 22.16 or later).`,
        { cause: error },
      );
    throw error;
  }
}

/**
 * Opens a file with better-sqlite3. `nativeBinding` is better-sqlite3's own option (the compiled module's
 * path), for a test to hand it one that cannot load.
 */
export function openBetterSqlite3(path: string, options: SqliteOpenOptions, nativeBinding?: string): SqliteDatabase {
  const Database = load(path);
  try {
    const db = new Database(path, {
      readonly: options.readonly,
      fileMustExist: options.readonly,
      timeout: options.timeoutMs,
      ...(nativeBinding === undefined ? {} : { nativeBinding }),
    });
    return new BetterSqliteDatabase(db);
  } catch (error) {
    const cause = error instanceof Error ? error.message : String(error);
    if (!NATIVE_LOAD_FAILURE.test(cause)) throw error;
    throw new ConfigurationError(
      `SQLite store "${path}" cannot use the better-sqlite3 driver: its native module does not load in Node ${process.version} (NODE_MODULE_VERSION ${process.versions.modules}): ${cause.replace(/\s+/g, ' ').slice(0, 400)}. ` +
        `Fix: rebuild it for this Node with its headers: npm_config_nodedir=${nodeDir()} npm rebuild better-sqlite3; or use Node's built-in driver ("sqlite:${path}?driver=node", Node 22.16 or later).`,
      { cause: error },
    );
  }
}

/** Where the running Node's headers are: the folder above its `bin/node`, which holds `include/node`. */
function nodeDir(): string {
  return process.execPath.replace(/[\\/]bin[\\/][^\\/]+$/, '');
}

class BetterSqliteDatabase implements SqliteDatabase {
  readonly driver = 'better-sqlite3';

  constructor(private readonly db: BetterSqlite3.Database) {}

  get readonly(): boolean {
    return this.db.readonly;
  }

  get open(): boolean {
    return this.db.open;
  }

  get inTransaction(): boolean {
    return this.db.inTransaction;
  }

  prepare(sql: string): SqliteStatement {
    return this.db.prepare(sql) as SqliteStatement;
  }

  exec(sql: string): void {
    this.db.exec(sql);
  }

  pragma(text: string): unknown {
    return this.db.pragma(text, { simple: true });
  }

  transaction<A extends unknown[], R>(work: (...args: A) => R): SqliteTransaction<A, R> {
    return this.db.transaction(work) as SqliteTransaction<A, R>;
  }

  close(): void {
    this.db.close();
  }
}
