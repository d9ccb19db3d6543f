// The seam between the SQLite store and the library that talks to SQLite: Node's own `node:sqlite`, or the
// better-sqlite3 package (sqlite-driver-node.ts, sqlite-driver-better.ts; sqlite-driver.ts picks one). Both
// are synchronous and run SQLite in this thread, so the store is the same code over either; only opening,
// pragmas and transactions differ, and those go through `SqliteDatabase`. Statements are the library's own
// objects (no wrapper on the hot path): both answer `run`, `get` and `all` with positional parameters.

/** Which library the SQLite store uses: `node` is Node's built-in `node:sqlite`, `better-sqlite3` the package. */
export type SqliteDriver = 'node' | 'better-sqlite3';

/** A value SQLite binds. */
export type SqliteValue = string | number | bigint | null | Uint8Array;

/** A statement's parameters: positional values, or one object of named ones (`@name`). `undefined` is not one. */
export type SqliteParam = SqliteValue | Readonly<Record<string, SqliteValue>>;

/** A prepared statement, as both libraries give it (changes as a number: no statement reads bigints). */
export interface SqliteStatement {
  run(...params: SqliteParam[]): { readonly changes: number };
  get(...params: SqliteParam[]): unknown;
  all(...params: SqliteParam[]): unknown[];
}

/**
 * A function run in a transaction: BEGIN before, COMMIT after, ROLLBACK when it throws (a savepoint when
 * called inside another); `immediate` takes the write lock at BEGIN, before the function's first read.
 */
export interface SqliteTransaction<A extends unknown[], R> {
  (...args: A): R;
  immediate(...args: A): R;
}

/** An open connection. */
export interface SqliteDatabase {
  readonly driver: SqliteDriver;
  readonly readonly: boolean;
  readonly open: boolean;
  /** A transaction is open (SQLite ends one on its own after some errors, a full disk among them). */
  readonly inTransaction: boolean;
  prepare(sql: string): SqliteStatement;
  exec(sql: string): void;
  /** Runs `PRAGMA text` and answers the first column of its first row (undefined when it answers none). */
  pragma(text: string): unknown;
  transaction<A extends unknown[], R>(work: (...args: A) => R): SqliteTransaction<A, R>;
  close(): void;
}

export interface SqliteOpenOptions {
  readonly readonly: boolean;
  /** Busy timeout: how long a write waits for another connection's write lock. */
  readonly timeoutMs: number;
}
