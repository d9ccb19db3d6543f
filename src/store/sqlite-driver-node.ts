import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { ConfigurationError } from '../errors.js';
import type { SqliteDatabase, SqliteOpenOptions, SqliteStatement, SqliteTransaction } from './sqlite-connection.js';

// The SQLite store over Node's built-in `node:sqlite` (DatabaseSync): no package, no native build.

type NodeSqlite = typeof import('node:sqlite');

let loaded: NodeSqlite | undefined;

/**
 * `node:sqlite`, loaded once. Node 22 marks it experimental and says so with an ExperimentalWarning when it
 * loads; Wardrik chose it knowingly, so that one warning is kept from the app's output (every other warning,
 * and that one for an app that loads `node:sqlite` itself, is emitted as before). Node 24 emits none.
 */
function nodeSqlite(): NodeSqlite {
  if (loaded !== undefined) return loaded;
  // eslint-disable-next-line @typescript-eslint/unbound-method -- put back as it was, unbound
  const original = process.emitWarning;
  const emitWarning = process.emitWarning.bind(process) as (...args: unknown[]) => void;
  process.emitWarning = (warning: string | Error, ...rest: unknown[]): void => {
    const text = typeof warning === 'string' ? warning : warning.message;
    const type = typeof rest[0] === 'string' ? rest[0] : (rest[0] as { type?: string } | undefined)?.type;
    const name = typeof warning === 'string' ? type : warning.name;
    if (name === 'ExperimentalWarning' && text.startsWith('SQLite is an experimental feature')) return;
    emitWarning(warning, ...rest);
  };
  try {
    loaded = process.getBuiltinModule('node:sqlite') as NodeSqlite;
    return loaded;
  } finally {
    process.emitWarning = original;
  }
}

let usable: boolean | undefined;

/** Why this Node cannot run the store on `node:sqlite` (a Node without it, or before 22.16), or undefined. */
export function nodeSqliteMissing(): string | undefined {
  if (usable === undefined) {
    try {
      // isTransaction (Node 22.16, 24): a full disk ends a transaction on its own, and the store must know.
      const probe = new (nodeSqlite().DatabaseSync)(':memory:');
      usable = typeof probe.isTransaction === 'boolean';
      probe.close();
    } catch {
      usable = false;
    }
  }
  return usable
    ? undefined
    : `Node ${process.version} has no node:sqlite with DatabaseSync#isTransaction (Node 22.16 or later has)`;
}

export function openNodeSqlite(path: string, options: SqliteOpenOptions): SqliteDatabase {
  const missing = nodeSqliteMissing();
  if (missing !== undefined)
    throw new ConfigurationError(
      `SQLite store "${path}" cannot use the "node" driver: ${missing}. Fix: run Node 22.16 or later, or choose the better-sqlite3 driver ("sqlite:${path}?driver=better-sqlite3", with the better-sqlite3 package installed).`,
    );
  const db = new (nodeSqlite().DatabaseSync)(path, { readOnly: options.readonly });
  try {
    db.exec(`PRAGMA busy_timeout = ${Math.trunc(options.timeoutMs)}`);
  } catch (error) {
    db.close();
    throw error;
  }
  return new NodeSqliteDatabase(db, options.readonly);
}

class NodeSqliteDatabase implements SqliteDatabase {
  readonly driver = 'node';
  private readonly control: Record<
    'begin' | 'beginImmediate' | 'commit' | 'rollback' | 'savepoint' | 'release' | 'rollbackTo',
    StatementSync
  >;

  constructor(
    private readonly db: DatabaseSync,
    readonly readonly: boolean,
  ) {
    this.control = {
      begin: db.prepare('BEGIN'),
      beginImmediate: db.prepare('BEGIN IMMEDIATE'),
      commit: db.prepare('COMMIT'),
      rollback: db.prepare('ROLLBACK'),
      savepoint: db.prepare('SAVEPOINT wardrik_nested'),
      release: db.prepare('RELEASE wardrik_nested'),
      rollbackTo: db.prepare('ROLLBACK TO wardrik_nested'),
    };
  }

  get open(): boolean {
    return this.db.isOpen;
  }

  get inTransaction(): boolean {
    return this.db.isTransaction;
  }

  prepare(sql: string): SqliteStatement {
    // Its changes are numbers unless a statement asks for bigints, which none of the store's does.
    return this.db.prepare(sql) as SqliteStatement;
  }

  exec(sql: string): void {
    this.db.exec(sql);
  }

  pragma(text: string): unknown {
    const row = this.db.prepare(`PRAGMA ${text}`).get();
    return row === undefined ? undefined : Object.values(row)[0];
  }

  /** better-sqlite3's `db.transaction`, made the same way: the store's code runs unchanged over either. */
  transaction<A extends unknown[], R>(work: (...args: A) => R): SqliteTransaction<A, R> {
    const { control } = this;
    const within =
      (begin: StatementSync) =>
      (...args: A): R => {
        const nested = this.db.isTransaction;
        (nested ? control.savepoint : begin).run();
        try {
          const result = work(...args);
          (nested ? control.release : control.commit).run();
          return result;
        } catch (error) {
          // A failed COMMIT, or an error after which SQLite ended the transaction itself, leaves none to undo.
          if (this.db.isTransaction) {
            if (nested) {
              control.rollbackTo.run();
              control.release.run();
            } else control.rollback.run();
          }
          throw error;
        }
      };
    return Object.assign(within(control.begin), { immediate: within(control.beginImmediate) });
  }

  close(): void {
    this.db.close();
  }
}
