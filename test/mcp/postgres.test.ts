import 'reflect-metadata';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import { alive, harness, stdio } from './helpers.js';
import { startHttpFixture } from './fixtures/http-server.js';

const base = process.env.WARDRIK_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `wardrik_mcp_${randomBytes(6).toString('hex')}`;
const storeUrl = `${base}?schema=${schema}`;

after(async () => {
  const admin = new pg.Pool({ connectionString: base, max: 1, connectionTimeoutMillis: 5_000 });
  try {
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await admin.end();
  }
});

describe('Runtime MCP servers on PostgreSQL, across two nodes', () => {
  it('a server added on one node reaches the other on reconcile, and leaves it when removed', async () => {
    const fixture = await startHttpFixture();
    const a = await harness({}, { store: storeUrl });
    const b = await harness({}, { store: storeUrl });
    try {
      await a.hub().add('web', { transport: { http: { url: fixture.url } }, only: ['echo'] });
      await a.hub().add('local', { transport: stdio(), only: ['echo', 'add'] });
      await a.toolsChanged('web', 1);
      assert.deepEqual(b.hub().servers(), []);
      await b.hub().reconcile();
      assert.deepEqual(b.hub().servers(), ['local', 'web']);
      await b.toolsChanged('web', 1);
      await b.toolsChanged('local', 2);
      assert.deepEqual(await b.call('web__echo', { text: 'node b' }), {
        status: 'ok',
        output: 'echo: node b',
        labels: ['outside'],
      });
      assert.deepEqual(await b.call('local__echo', { text: 'node b' }), {
        status: 'ok',
        output: 'echo: node b',
        labels: ['outside'],
      });

      const pid = b.hub().pid('local')!;
      await a.hub().remove('local');
      await b.hub().reconcile();
      assert.deepEqual(b.hub().servers(), ['web']);
      assert.equal(alive(pid), false, "node b's process for the removed server is reaped");
      await assert.rejects(b.hub().remove('local'), { code: 'not_found' });
    } finally {
      await a.close();
      await b.close();
      await fixture.close();
    }
  });
});
