import { ConfigurationError } from '../errors.js';
import { openBetterSqlite3 } from './sqlite-driver-better.js';
import { nodeSqliteMissing, openNodeSqlite } from './sqlite-driver-node.js';

import type { SqliteDatabase, SqliteDriver, SqliteOpenOptions } from './sqlite-connection.js';

// Which SQLite library a store opens its file with (sqlite-connection.ts says what both give).

export const SQLITE_DRIVERS: readonly SqliteDriver[] = ['node', 'better-sqlite3'];

/**
 * The driver a store uses when none is named: Node's own `node:sqlite`, which needs no native build (see
 * docs/durable-runs.md for what was measured), unless this Node lacks a part the store needs (Node before
 * 22.16); then better-sqlite3.
 */
export function defaultSqliteDriver(): SqliteDriver {
  return nodeSqliteMissing() === undefined ? 'node' : 'better-sqlite3';
}

/**
 * Opens `path` with `driver`, synchronously (the libraries load when first used, so a user of one never
 * loads the other); a driver that cannot load throws a `ConfigurationError` that says how to fix it.
 */
export function openSqliteDatabase(path: string, options: SqliteOpenOptions, driver: SqliteDriver): SqliteDatabase {
  if (driver === 'node') return openNodeSqlite(path, options);
  if (driver === 'better-sqlite3') return openBetterSqlite3(path, options);
  throw new ConfigurationError(
    `SQLite driver ${JSON.stringify(driver)} is not one Wardrik knows. Use "node" (Node's built-in node:sqlite) or "better-sqlite3".`,
  );
}
