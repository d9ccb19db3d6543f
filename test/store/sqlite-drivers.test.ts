import 'reflect-metadata';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ConfigurationError } from '../../src/errors.js';
import { openStore } from '../../src/store/open-store.js';
import { openBetterSqlite3 } from '../../src/store/sqlite-driver-better.js';
import { SqliteStore } from '../../src/store/sqlite-store.js';
import { writeCall } from '../../src/store/journal-writes.js';

// The SQLite store's two drivers (src/store/sqlite-driver.ts): Node's own node:sqlite, the default, and the
// better-sqlite3 package. The Store contract, the crash, disk-full and checkpoint tests run on both; these
// test what is the drivers' own.

const dir = mkdtempSync(join(tmpdir(), 'wardrik-drivers-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const started = (run: string) => ({
  run,
  call: 'c',
  agent: 'a',
  tool: 't/x',
  arguments: { n: 1 },
  idempotencyKey: `${run}:c`,
  state: 'started' as const,
  attempt: 1,
  updatedAt: 1,
});

describe('The SQLite store’s drivers', () => {
  it('uses Node’s own node:sqlite unless told otherwise', async () => {
    const store = await openStore(`sqlite:${join(dir, 'default.db')}`);
    try {
      assert.equal((store as SqliteStore).driver, 'node');
    } finally {
      await store.close();
    }
    const better = await openStore(`sqlite:${join(dir, 'better.db')}?driver=better-sqlite3`);
    try {
      assert.equal((better as SqliteStore).driver, 'better-sqlite3');
    } finally {
      await better.close();
    }
  });

  it('reads with one driver what the other wrote, in the same file', async () => {
    const path = join(dir, 'shared.db');
    const [first, second] = [
      ['node', 'better-sqlite3'],
      ['better-sqlite3', 'node'],
    ] as const;
    for (const [writer, reader] of [first, second]) {
      const run = `written-by-${writer}`;
      const written = new SqliteStore({ path, driver: writer });
      try {
        assert.equal(await writeCall(written, started(run), undefined), true);
      } finally {
        await written.close();
      }
      const read = new SqliteStore({ path, driver: reader });
      try {
        assert.equal((await read.getCall(run, 'c'))?.state, 'started');
        assert.equal(await writeCall(read, started(run), undefined), false, 'a call is written once, whoever wrote it');
      } finally {
        await read.close();
      }
    }
  });

  it('refuses an unknown driver in a store URL, naming the ones it knows', async () => {
    await assert.rejects(openStore(`sqlite:${join(dir, 'x.db')}?driver=sqlite3`), {
      name: 'ConfigurationError',
      message: /"driver=sqlite3" is not a SQLite store option .*"driver=node" or "driver=better-sqlite3"/,
    });
  });

  describe('when better-sqlite3’s native module does not load (built for another Node, or broken)', () => {
    // better-sqlite3's own `nativeBinding` option points it at this file, as a build for another Node would be found.
    const broken = join(dir, 'better_sqlite3.node');
    writeFileSync(broken, 'not a shared object');

    it('throws a ConfigurationError when the file opens, naming the cause and how to rebuild', () => {
      assert.throws(
        () => openBetterSqlite3(join(dir, 'never.db'), { readonly: false, timeoutMs: 0 }, broken),
        (error: unknown) => {
          assert.ok(error instanceof ConfigurationError, String(error));
          assert.match(error.message, /native module does not load in Node v\d+/);
          assert.match(error.message, new RegExp(`NODE_MODULE_VERSION ${process.versions.modules}`));
          assert.match(error.message, /npm_config_nodedir=\S+ npm rebuild better-sqlite3/);
          assert.match(error.message, /driver=node/);
          return true;
        },
      );
    });
  });
});
