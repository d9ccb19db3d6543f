import 'reflect-metadata';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { startAuthServer, type AuthServer } from './fixtures/auth-server.js';
import { startHttpFixture, type HttpFixture } from './fixtures/http-server.js';
import { harness, tempDir } from './helpers.js';

const CLIENT = { id: 'wardrik-test', secret: 'client-secret-123' };
process.env.OAUTH_TEST_SECRET = CLIENT.secret;
process.env.OAUTH_TEST_KEY = 'one-key-for-every-node-0001';
process.env.OAUTH_OTHER_KEY = 'another-key-of-another-app-02';

/** An MCP server that wants a bearer token from `auth`, and `auth` itself. */
async function protectedServer(): Promise<{ mcp: HttpFixture; auth: AuthServer; close(): Promise<void> }> {
  const resource = { url: '' };
  const auth = await startAuthServer(() => resource.url, CLIENT);
  const mcp = await startHttpFixture({
    bearer: { metadataUrl: auth.metadataUrl, valid: (token) => auth.issued.has(token) },
  });
  resource.url = mcp.url;
  return { mcp, auth, close: async () => void (await Promise.all([mcp.close(), auth.close()])) };
}

const machine = {
  grant: 'client_credentials' as const,
  clientId: CLIENT.id,
  clientSecretCredential: 'OAUTH_TEST_SECRET',
};

describe('OAuth for remote MCP servers', () => {
  it('gets a token with the client-credentials grant, keeps it encrypted in the store, and another node uses it', async () => {
    const servers = await protectedServer();
    const file = join(tempDir(), 'w.db');
    const options = (keyCredential: string) => ({
      servers: { api: { transport: { http: { url: servers.mcp.url } }, gated: false, oauth: machine } },
      oauth: { keyCredential },
    });
    const first = await harness(options('OAUTH_TEST_KEY'), { store: `sqlite:${file}` });
    after(() => servers.close());
    try {
      await first.toolsChanged('api', 12);
      const answer = await first.call('api__echo', { text: 'hi' });
      assert.equal(answer.status === 'ok' && answer.output, 'echo: hi', JSON.stringify(answer));
      assert.deepEqual([...servers.auth.issued], ['tok-1']);
      assert.ok(servers.mcp.requests.some((r) => r.authorization === 'Bearer tok-1'));
    } finally {
      await first.close();
    }
    // In the store: a record under the hub's oauth name, with no token or secret in plain text.
    const db = new Database(file, { readonly: true });
    const rows = db.prepare('SELECT hub, name, options FROM wardrik_mcp_servers').all() as {
      hub: string;
      name: string;
      options: string;
    }[];
    db.close();
    const sealed = rows.find((row) => row.hub === 'mcp/oauth' && row.name === 'api');
    assert.ok(sealed !== undefined, JSON.stringify(rows));
    for (const row of rows) {
      assert.doesNotMatch(row.options, /tok-1|client-secret-123|access_token/);
    }

    const second = await harness(options('OAUTH_TEST_KEY'), { store: `sqlite:${file}` });
    try {
      await second.toolsChanged('api', 12);
      const again = await second.call('api__echo', { text: 'again' }, { run: 'second-node' });
      assert.equal(again.status, 'ok', JSON.stringify(again));
      assert.deepEqual([...servers.auth.issued], ['tok-1'], 'the same key opens the kept token: no new one');
    } finally {
      await second.close();
    }
    const stranger = await harness(options('OAUTH_OTHER_KEY'), { store: `sqlite:${file}` });
    try {
      await stranger.toolsChanged('api', 12);
      assert.deepEqual([...servers.auth.issued], ['tok-1', 'tok-2'], 'another key cannot read it: it asks anew');
    } finally {
      await stranger.close();
    }
  });

  it('checks every OAuth URL of a runtime server with the egress check: metadata elsewhere that the check refuses is never fetched', async () => {
    const servers = await protectedServer();
    const checked: string[] = [];
    const check = async (url: URL) => {
      checked.push(url.origin);
      return url.port === String(servers.mcp.port)
        ? { ok: true as const }
        : { ok: false as const, reason: `${url.origin} is not on the allow list` };
    };
    const h = await harness(
      { check, oauth: { keyCredential: 'OAUTH_TEST_KEY' }, runtimeCredentials: ['OAUTH_TEST_SECRET'] },
      { store: 'memory:' },
    );
    try {
      const from = h.mark();
      await h.hub().add('api', { transport: { http: { url: servers.mcp.url } }, gated: false, oauth: machine });
      await h.until(
        (e) => e.type === 'warning' && e.message.includes('"api"') && e.message.includes('is down'),
        15_000,
        from,
      );
      assert.ok(checked.includes(servers.auth.origin), JSON.stringify(checked));
      assert.deepEqual(servers.auth.requests, [], 'the authorization server heard nothing');
      assert.equal(h.hub().status()[0]?.state === 'connected', false);
    } finally {
      await h.close();
      await servers.close();
    }
  });

  it('refuses OAuth on a stdio server, and a runtime server naming a client secret it may not use', async () => {
    const h = await harness({}, { store: 'memory:' });
    try {
      await assert.rejects(
        h.hub().add('s', { transport: { stdio: { command: 'x' } }, oauth: {} }),
        /OAuth is for servers reached over HTTP/,
      );
      await assert.rejects(
        h.hub().add('r', { transport: { http: { url: 'http://127.0.0.1:9/mcp' } }, oauth: machine }),
        /OAUTH_TEST_SECRET.*runtimeCredentials/,
      );
    } finally {
      await h.close();
    }
  });
});
