import 'reflect-metadata';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, describe, it } from 'node:test';
import type { SqliteDatabase } from '../src/store/sqlite-connection.js';
import { prepare } from '../src/store/sqlite-statements.js';
import { SqliteStore } from '../src/store/sqlite-store.js';

// The SQLite store's statements are compiled once, when the store opens: a statement SQLite compiles again at
// every run (a parameter its planner read, see src/store/sqlite-statements.ts) costs more than the query. SQLite
// runs an authorizer on every compile, so none may run while the prepared statements run. node:sqlite has an
// authorizer from Node 24 only, so this file sits outside test/store, which CI runs again on Node 22.

/** node:sqlite's `DatabaseSync#setAuthorizer` (Node 24; the @types/node of Node 22 lacks it). */
interface Authorizing {
  setAuthorizer(callback: (action: number) => number): void;
}

const dir = mkdtempSync(join(tmpdir(), 'wardrik-statements-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('The SQLite store’s statements', () => {
  it('are never compiled again when they run with new values', async () => {
    const path = join(dir, 'store.db');
    await new SqliteStore({ path, driver: 'node' }).close();
    const db = new DatabaseSync(path);
    try {
      const compiled: string[] = [];
      let current: string | undefined;
      // Set before the statements are prepared: setting one expires every statement prepared before.
      (db as unknown as Authorizing).setAuthorizer(() => {
        if (current !== undefined && !compiled.includes(current)) compiled.push(current);
        return 0; // SQLITE_OK
      });
      const statements = Object.entries(prepare(db as unknown as SqliteDatabase));
      db.exec('BEGIN');
      try {
        for (const [name, statement] of statements) {
          current = name;
          const parameters = (statement as unknown as { sourceSQL: string }).sourceSQL.match(/\?/g)?.length ?? 0;
          // New values at each run (a limit among them), as the store binds them.
          for (let run = 1; run <= 3; run++) statement.all(...Array.from({ length: parameters }, (_, i) => run + i));
        }
      } finally {
        current = undefined;
        db.exec('ROLLBACK');
      }
      assert.ok(statements.length > 50, `${statements.length} statements`);
      assert.deepEqual(compiled, [], `compiled again at a run: ${compiled.join(', ')}`);
    } finally {
      db.close();
    }
  });
});
