import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, describe, it } from 'node:test';
import { ConfigurationError } from '../../src/errors.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { openStore, redact } from '../../src/store/open-store.js';
import { SqliteStore } from '../../src/store/sqlite-store.js';

const dir = mkdtempSync(join(tmpdir(), 'wardrik-open-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('openStore', () => {
  describe('with a URL it knows', () => {
    it('opens a memory store for "memory:"', async () => {
      assert.ok((await openStore('memory:')) instanceof MemoryStore);
    });

    it('opens a SQLite file at an absolute path, synchronous NORMAL', async () => {
      const path = join(dir, 'abs', 'wardrik.db');
      const store = await openStore(`sqlite:${path}`);
      try {
        assert.ok(store instanceof SqliteStore);
        assert.equal(store.path, path);
        assert.equal(store.synchronous, 'normal');
      } finally {
        await store.close();
      }
    });

    it('opens a SQLite file at a path relative to the working directory', async () => {
      const path = join(dir, 'rel', 'wardrik.db');
      const store = await openStore(`sqlite:${relative(process.cwd(), path)}`);
      try {
        assert.ok(store instanceof SqliteStore);
        assert.equal(store.path, path);
      } finally {
        await store.close();
      }
    });

    it('takes ?synchronous=full', async () => {
      const store = await openStore(`sqlite:${join(dir, 'full.db')}?synchronous=full`);
      try {
        assert.ok(store instanceof SqliteStore);
        assert.equal(store.synchronous, 'full');
      } finally {
        await store.close();
      }
    });
  });

  describe('with a URL it does not know', () => {
    it('names the URL, says what is accepted and suggests the closest scheme', async () => {
      await assert.rejects(openStore('sqlit:x.db'), (error: unknown) => {
        assert.ok(error instanceof ConfigurationError);
        assert.match(error.message, /"sqlit:x\.db"/);
        assert.match(error.message, /"memory:", "sqlite:PATH"/);
        assert.match(error.message, /postgres:\/\//);
        assert.match(error.message, /Did you mean "sqlite:x\.db"\?/);
        return true;
      });
    });

    it('suggests postgres:// for postgress:// and never shows the password', async () => {
      await assert.rejects(openStore('postgress://ana:hunter2@db.internal:5432/app'), (error: unknown) => {
        assert.ok(error instanceof ConfigurationError);
        assert.match(error.message, /"postgress:\/\/ana:\*\*\*@db\.internal:5432\/app"/);
        assert.match(error.message, /Did you mean "postgres:\/\/ana:\*\*\*@db\.internal:5432\/app"\?/);
        assert.doesNotMatch(error.message, /hunter2/);
        return true;
      });
    });

    it('suggests a sqlite: URL for a bare path', async () => {
      await assert.rejects(openStore('.wardrik/wardrik.db'), {
        name: 'ConfigurationError',
        message: /Did you mean "sqlite:\.wardrik\/wardrik\.db"\?/,
      });
    });

    it('refuses an unknown SQLite option, naming it', async () => {
      await assert.rejects(openStore(`sqlite:${join(dir, 'x.db')}?synchronous=off`), {
        name: 'ConfigurationError',
        message: /"synchronous=off" is not a SQLite store option/,
      });
    });

    it('refuses a sqlite: URL with no path', async () => {
      await assert.rejects(openStore('sqlite:'), { name: 'ConfigurationError', message: /names no file/ });
    });
  });

  describe('redact', () => {
    it('hides the password and keeps the rest', () => {
      assert.equal(redact('postgres://ana:s3cr3t@h:5432/db'), 'postgres://ana:***@h:5432/db');
      assert.equal(redact('postgres://ana@h/db'), 'postgres://ana@h/db');
    });
  });
});
