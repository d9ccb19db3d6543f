import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OAuthError, OAuthErrorCode, type AuthInfo, type OAuthTokenVerifier } from '@modelcontextprotocol/server';
import { serving } from './helpers.js';

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

/** Accepts `good-token` (scope `mcp`, client `ana`); refuses `wrong` with v2's error; fails on `down`. */
const verifier: OAuthTokenVerifier = {
  async verifyAccessToken(token): Promise<AuthInfo> {
    if (token === 'down') throw new Error('The token service at 10.0.0.7 is down.');
    if (token !== 'good-token') throw new OAuthError(OAuthErrorCode.InvalidToken, 'Unknown token.');
    return { token, clientId: 'ana', scopes: ['mcp'], expiresAt: Math.floor(Date.now() / 1000) + 600 };
  },
};

async function post(url: string, authorization?: string) {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(authorization === undefined ? {} : { authorization }),
    },
    body: INITIALIZE,
  });
  const body = await response.text();
  return { status: response.status, challenge: response.headers.get('www-authenticate'), body };
}

describe('Bearer tokens on the 2025-11-25 HTTP path (SDK v2 checks)', () => {
  it("answers no token, a wrong one, a missing scope and a failing verifier each as MCP's auth says", async () => {
    const metadata = 'https://mcp.example.com/.well-known/oauth-protected-resource';
    const s = await serving({ authenticate: { verifier, resourceMetadataUrl: metadata } });
    const scoped = await serving({ authenticate: { verifier, requiredScopes: ['admin'] } });
    try {
      const missing = await post(s.url);
      assert.equal(missing.status, 401);
      assert.match(missing.challenge ?? '', /^Bearer error="invalid_token"/);
      assert.match(missing.challenge ?? '', new RegExp(`resource_metadata="${metadata}"`));
      const wrong = await post(s.url, 'Bearer wrong');
      assert.equal(wrong.status, 401);
      assert.deepEqual(JSON.parse(wrong.body), { error: 'invalid_token', error_description: 'Unknown token.' });
      const down = await post(s.url, 'Bearer down');
      assert.equal(down.status, 500);
      // The verifier's message (a host here) is the developer's, never the client's.
      assert.doesNotMatch(down.body, /10\.0\.0\.7/);
      assert.equal((await post(s.url, 'Bearer good-token')).status, 200);
      const narrow = await post(scoped.url, 'Bearer good-token');
      assert.equal(narrow.status, 403);
      assert.match(narrow.challenge ?? '', /error="insufficient_scope"/);
    } finally {
      await Promise.all([s.close(), scoped.close()]);
    }
  });
});
