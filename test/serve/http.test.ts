import 'reflect-metadata';
import assert from 'node:assert/strict';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, it } from 'node:test';
import type { OAuthTokenVerifier } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { serving } from './helpers.js';
import { manualTimeContainer } from '../manual-time-container.js';
import { manualTime } from '../../src/testing/index.js';

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

/** A raw HTTP request, so that Host and the body are exactly as a test writes them. */
function send(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method: options.method ?? 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...options.headers,
        },
      },
      (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** Tokens `alice-token` and `alice-phone-token` for client alice, `bob-token` for bob. */
const verifier: OAuthTokenVerifier = {
  async verifyAccessToken(token) {
    const client = { 'alice-token': 'alice', 'alice-phone-token': 'alice', 'bob-token': 'bob' }[token];
    if (client === undefined) throw new InvalidTokenError('Unknown token.');
    return { token, clientId: client, scopes: [], expiresAt: Math.floor(Date.now() / 1000) + 600 };
  },
};

describe('WardrikMcpServer over HTTP', () => {
  describe('with authenticate', () => {
    it('answers 401 with WWW-Authenticate without a valid token, and never echoes the token', async () => {
      const s = await serving({
        authenticate: { verifier, resourceMetadataUrl: 'http://127.0.0.1/.well-known/oauth-protected-resource' },
      });
      try {
        const missing = await send(s.url, { body: JSON.stringify(INITIALIZE) });
        assert.equal(missing.status, 401);
        assert.match(String(missing.headers['www-authenticate']), /^Bearer error="invalid_token".*resource_metadata=/);
        const wrong = await send(s.url, {
          headers: { authorization: 'Bearer secret-guess-123' },
          body: JSON.stringify(INITIALIZE),
        });
        assert.equal(wrong.status, 401);
        assert.doesNotMatch(wrong.body + String(wrong.headers['www-authenticate']), /secret-guess-123/);
      } finally {
        await s.close();
      }
    });

    it("runs calls as the token's client, and keeps one client out of another's session", async () => {
      const s = await serving({ authenticate: { verifier } });
      try {
        const alice = await s.client({ requestInit: { headers: { authorization: 'Bearer alice-token' } } });
        await alice.callTool({ name: 'orders__find_order', arguments: { id: 'o-1' } });
        assert.equal((await s.store.listCalls({ run: alice.session }))[0]!.agent, 'alice');
        const hijack = await send(s.url, {
          headers: {
            authorization: 'Bearer bob-token',
            'mcp-session-id': alice.session,
            'mcp-protocol-version': '2025-11-25',
          },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 2,
            method: 'tools/call',
            params: { name: 'orders__read_web', arguments: {} },
          }),
        });
        assert.equal(hijack.status, 403);
        assert.deepEqual(await s.store.getLabels(alice.session), ['confidential'], "alice's own read, not bob's page");
      } finally {
        await s.close();
      }
    });

    it('takes the agent id from identify when given', async () => {
      const s = await serving({
        authenticate: { verifier },
        identify: ({ auth, client }) => `${auth?.clientId}@${client?.name}`,
      });
      try {
        const bob = await s.client({ requestInit: { headers: { authorization: 'Bearer bob-token' } } });
        await bob.callTool({ name: 'orders__find_order', arguments: { id: 'o-1' } });
        assert.equal((await s.store.listCalls({ run: bob.session }))[0]!.agent, 'bob@test-client');
      } finally {
        await s.close();
      }
    });
    it("never echoes what an identify hook threw, and tries it again on the session's next call", async () => {
      let failures = 1;
      const s = await serving({
        authenticate: { verifier },
        identify: ({ auth }) => {
          if (failures-- > 0) throw new Error(`directory lookup failed for ${auth?.token}`);
          return `${auth?.clientId}-agent`;
        },
      });
      try {
        const bob = await s.client({ requestInit: { headers: { authorization: 'Bearer bob-token' } } });
        await assert.rejects(
          bob.callTool({ name: 'orders__find_order', arguments: { id: 'o-1' } }),
          (error: Error) => !error.message.includes('bob-token') && /inside the server/.test(error.message),
        );
        const result = await bob.callTool({ name: 'orders__find_order', arguments: { id: 'o-1' } });
        assert.equal(result.isError, undefined);
        assert.deepEqual(
          (await s.store.listCalls({ run: bob.session })).map((call) => call.agent),
          ['bob-agent'],
        );
      } finally {
        await s.close();
      }
    });
  });

  describe('DNS-rebinding protection on a loopback bind', () => {
    it('refuses a foreign Host or Origin with 403 and accepts loopback names', async () => {
      const s = await serving();
      try {
        const port = new URL(s.url).port;
        const evilHost = await send(s.url, {
          headers: { host: `evil.example.com:${port}` },
          body: JSON.stringify(INITIALIZE),
        });
        assert.equal(evilHost.status, 403);
        assert.match(evilHost.body, /DNS-rebinding/);
        const evilOrigin = await send(s.url, {
          headers: { host: `localhost:${port}`, origin: 'http://evil.example.com' },
          body: JSON.stringify(INITIALIZE),
        });
        assert.equal(evilOrigin.status, 403);
        const local = await send(s.url, {
          headers: { host: `localhost:${port}`, origin: `http://localhost:6274` },
          body: JSON.stringify(INITIALIZE),
        });
        assert.equal(local.status, 200);
      } finally {
        await s.close();
      }
    });

    it('checks the allow-lists given instead', async () => {
      const s = await serving({
        http: { allowedHosts: ['mcp.internal:8080'], allowedOrigins: ['https://app.internal'] },
      });
      try {
        assert.equal((await send(s.url, { body: JSON.stringify(INITIALIZE) })).status, 403);
        assert.equal(
          (
            await send(s.url, {
              headers: { host: 'mcp.internal:8080', origin: 'http://localhost' },
              body: JSON.stringify(INITIALIZE),
            })
          ).status,
          403,
        );
        assert.equal(
          (
            await send(s.url, {
              headers: { host: 'mcp.internal:8080', origin: 'https://app.internal' },
              body: JSON.stringify(INITIALIZE),
            })
          ).status,
          200,
        );
      } finally {
        await s.close();
      }
    });
  });

  describe('mounted in an app', () => {
    it('serves through handler() in an app that parsed the JSON body already (as Express json() does)', async () => {
      const s = await serving();
      const handler = s.server.handler();
      const app = createServer(async (req, res) => {
        let raw = '';
        for await (const chunk of req) raw += String(chunk);
        (req as typeof req & { body?: unknown }).body = raw === '' ? undefined : JSON.parse(raw);
        await handler(req, res);
      });
      await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
      try {
        const url = `http://127.0.0.1:${(app.address() as AddressInfo).port}/anywhere`;
        const client = new Client({ name: 'app-client', version: '1.0.0' });
        await client.connect(new StreamableHTTPClientTransport(new URL(url)));
        const result = await client.callTool({ name: 'orders__find_order', arguments: { id: 'o-5' } });
        assert.deepEqual(result.structuredContent, { id: 'o-5', status: 'shipped' });
        await client.close();
      } finally {
        app.closeAllConnections();
        await new Promise((resolve) => app.close(resolve));
        await s.close();
      }
    });
  });

  describe('limits', () => {
    it('answers 413 to a body over maxBodyBytes and 400 to one that is not JSON', async () => {
      const s = await serving({ http: { maxBodyBytes: 1_000 } });
      try {
        const big = await send(s.url, { body: JSON.stringify({ ...INITIALIZE, padding: 'x'.repeat(2_000) }) });
        assert.equal(big.status, 413);
        const bad = await send(s.url, { body: '{"jsonrpc":' });
        assert.equal(bad.status, 400);
        assert.match(bad.body, /-32700/);
      } finally {
        await s.close();
      }
    });

    it('closes a session left idle for idleMs; its id is then unknown (404)', async () => {
      const time = manualTime(Date.now());
      const s = await serving({ http: { idleMs: 30 } }, { container: manualTimeContainer(time) });
      try {
        const opened = await send(s.url, { body: JSON.stringify(INITIALIZE) });
        const session = String(opened.headers['mcp-session-id']);
        const headers = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
        await time.advance(30);
        assert.equal(
          (await send(s.url, { headers, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }) })).status,
          404,
        );
      } finally {
        await s.close();
      }
    });

    it('answers 503 past maxSessions', async () => {
      const s = await serving({ http: { maxSessions: 1 } });
      try {
        assert.equal((await send(s.url, { body: JSON.stringify(INITIALIZE) })).status, 200);
        assert.equal((await send(s.url, { body: JSON.stringify(INITIALIZE) })).status, 503);
      } finally {
        await s.close();
      }
    });

    it('answers 503 past maxSessionsPerClient for that client only, and lets it open one again once one ends', async () => {
      const s = await serving({ authenticate: { verifier }, http: { maxSessionsPerClient: 2 } });
      try {
        const open = (token: string) =>
          send(s.url, { headers: { authorization: `Bearer ${token}` }, body: JSON.stringify(INITIALIZE) });
        // Three at once from one client (two of its tokens): two sessions, one refusal.
        const three = await Promise.all([open('alice-token'), open('alice-phone-token'), open('alice-token')]);
        assert.deepEqual(three.map((r) => r.status).sort(), [200, 200, 503]);
        const refused = await open('alice-phone-token');
        assert.equal(refused.status, 503);
        assert.match(refused.body, /2 sessions open for this client/);
        // Another client is not held to alice's count.
        assert.equal((await open('bob-token')).status, 200);
        // One of alice's sessions ends: she may open another.
        const session = String(three.find((r) => r.status === 200)!.headers['mcp-session-id']);
        const ended = await send(s.url, {
          method: 'DELETE',
          headers: {
            authorization: 'Bearer alice-token',
            'mcp-session-id': session,
            'mcp-protocol-version': '2025-11-25',
          },
        });
        assert.equal(ended.status, 200);
        assert.equal((await open('alice-token')).status, 200);
        assert.equal((await open('alice-token')).status, 503);
      } finally {
        await s.close();
      }
    });

    it('keeps nothing of an initialize the transport refused (a missing Accept), however many come', async () => {
      const s = await serving();
      try {
        for (let i = 0; i < 20; i++) {
          assert.equal(
            (await send(s.url, { headers: { accept: 'application/json' }, body: JSON.stringify(INITIALIZE) })).status,
            406,
          );
        }
        // Each refused initialize had made a session (an SDK Server and transport) that nothing would close.
        assert.equal((s.server as unknown as { sessions: Set<unknown> }).sessions.size, 0);
        assert.equal((await send(s.url, { body: JSON.stringify(INITIALIZE) })).status, 200);
        assert.equal((s.server as unknown as { sessions: Set<unknown> }).sessions.size, 1);
      } finally {
        await s.close();
      }
    });

    it('answers 404 off its path and 400 to a request with no session that is not initialize', async () => {
      const s = await serving();
      try {
        assert.equal((await send(s.url.replace('/mcp', '/other'), { body: JSON.stringify(INITIALIZE) })).status, 404);
        assert.equal(
          (await send(s.url, { body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) })).status,
          400,
        );
      } finally {
        await s.close();
      }
    });
  });
});
