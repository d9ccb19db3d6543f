import 'reflect-metadata';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { Wardrik, type McpHubOptions } from '../../src/index.js';
import { startCodeAuthServer } from '../mcp/fixtures/code-auth-server.js';
import { startHttpFixture } from '../mcp/fixtures/http-server.js';
import { FAST } from '../mcp/helpers.js';
import { signIn, TOKEN } from './helpers.js';
import { eventually } from '../eventually.js';

process.env.OAUTH_WEB_KEY = 'one-key-for-every-node-web-01';
const CLIENT_ID = 'wardrik-app';
const dir = mkdtempSync(join(tmpdir(), 'wardrik-oauth-web-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A port nothing listens on now, for the inbox page whose address the hub's redirect URL names first. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
    probe.on('error', reject);
  });
}

/** Token material in the store's rows, in plain text (there should be none). */
function plainTokens(file: string): string[] {
  const db = new Database(file, { readonly: true });
  const rows = db.prepare('SELECT options FROM wardrik_mcp_servers').all() as { options: string }[];
  db.close();
  return rows.flatMap(
    (row) => row.options.match(/at-\d+|rt-\d+-[0-9a-f]+|code-[0-9a-f]+|refresh_token|access_token/g) ?? [],
  );
}

describe('Signing in to an MCP server through the web inbox (authorization code, PKCE, refresh)', () => {
  it('completes the sign-in at /oauth/callback for a signed-in person, refuses a forged state without echoing the code, refreshes an expired token and shares it with a second node', async () => {
    const resource = { url: '' };
    // Access tokens live 1.5 s on the authorization server's clock, which the test moves on to see one expire.
    let later = 0;
    const auth = await startCodeAuthServer(
      () => resource.url,
      CLIENT_ID,
      1_500,
      () => Date.now() + later,
    );
    const mcp = await startHttpFixture({
      bearer: { metadataUrl: auth.metadataUrl, valid: (token) => auth.valid(token) },
    });
    resource.url = mcp.url;
    const port = await freePort();
    const base = `http://127.0.0.1:${port}/`;
    const file = join(dir, 'w.db');
    const hub: McpHubOptions = {
      ...FAST,
      servers: { api: { transport: { http: { url: mcp.url } }, gated: false, oauth: { clientId: CLIENT_ID } } },
      oauth: { redirectUrl: `${base}oauth/callback`, keyCredential: 'OAUTH_WEB_KEY' },
    };
    const first = await Wardrik.create({ store: `sqlite:${file}`, recoverMs: Infinity, mcp: hub });
    const web = first.inboxWeb({ token: TOKEN });
    let second: Wardrik | undefined;
    try {
      await web.listen({ port });
      await eventually("(await first.inbox.list()).some((item) => item.kind === 'authorize')", async () =>
        (await first.inbox.list()).some((item) => item.kind === 'authorize'),
      );
      const [item] = await first.inbox.list();
      const url = new URL((item!.detail as { url: string }).url);
      assert.equal(url.origin, auth.origin);
      assert.equal(url.searchParams.get('code_challenge_method'), 'S256');
      // The person's browser: the authorization server sends it back to the callback with a code.
      const approved = await fetch(url, { redirect: 'manual' });
      assert.equal(approved.status, 302);
      const callback = new URL(approved.headers.get('location')!);
      assert.equal(callback.origin + callback.pathname, `${base}oauth/callback`);
      const code = callback.searchParams.get('code')!;

      // Nobody signed in to the inbox: refused, and the code is not spent.
      const anonymous = await fetch(callback, { redirect: 'manual' });
      assert.equal(anonymous.status, 401);
      const person = await signIn(base, 'Ann');
      // A forged state: no sign-in waits for it; the answer does not echo the code.
      const forged = new URL(callback);
      forged.searchParams.set('state', 'forged-state');
      const refused = await person.get(forged.href);
      assert.equal(refused.status, 404);
      assert.doesNotMatch(await refused.text(), new RegExp(code));
      assert.equal((await first.inbox.get(item!.id))?.status, 'pending');

      const done = await person.get(callback.href);
      assert.equal(done.status, 200, await done.clone().text());
      assert.match(await done.text(), /Signed in to MCP server "api"/);
      const answered = await first.inbox.get(item!.id);
      assert.equal(answered?.status, 'answered');
      assert.equal(answered?.by, 'Ann');
      assert.deepEqual(auth.grants, ['authorization_code']);

      await eventually("first.tools(['api/*']).length > 0", () => first.tools(['api/*']).length > 0);
      const call = (w: Wardrik, id: string) =>
        w.runner.run({ agent: 'a', run: `run-${id}`, call: { id, name: 'api__echo', arguments: { text: id } } });
      const once = await call(first, 'c1');
      assert.equal(once.status === 'ok' && once.output, 'echo: c1', JSON.stringify(once));

      // The access token expires: the next call refreshes it with the refresh token, and goes through.
      later += 1_700;
      const refreshed = await call(first, 'c2');
      assert.equal(refreshed.status === 'ok' && refreshed.output, 'echo: c2', JSON.stringify(refreshed));
      assert.deepEqual(auth.grants, ['authorization_code', 'refresh_token']);
      assert.deepEqual(plainTokens(file), [], 'tokens are kept encrypted');

      // A second node with the same key reads the refreshed tokens: no sign-in, no new code.
      second = await Wardrik.create({ store: `sqlite:${file}`, recoverMs: Infinity, mcp: hub });
      await eventually("second!.tools(['api/*']).length > 0", () => second!.tools(['api/*']).length > 0);
      const there = await call(second, 'c3');
      assert.equal(there.status === 'ok' && there.output, 'echo: c3', JSON.stringify(there));
      assert.equal((await second.inbox.list()).filter((pending) => pending.kind === 'authorize').length, 0);
      assert.deepEqual(
        auth.grants,
        ['authorization_code', 'refresh_token'],
        'the second node used the refreshed token',
      );
    } finally {
      await second?.close();
      await first.close();
      await mcp.close();
      await auth.close();
    }
  });
});
