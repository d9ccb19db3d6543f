import 'reflect-metadata';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { describe, it } from 'node:test';
import type { OAuthTokenVerifier } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { ServeHttpOptions, ServeOptions } from '../../src/index.js';
import { serving } from './helpers.js';
import { eventually } from '../eventually.js';

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

function send(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      },
    );
    req.on('error', reject);
    req.end(INITIALIZE);
  });
}

/** One token, `right-token-0123456789`, for client `ana`. */
const verifier: OAuthTokenVerifier = {
  verifyAccessToken(token) {
    if (token !== 'right-token-0123456789') return Promise.reject(new InvalidTokenError('Unknown token.'));
    return Promise.resolve({ token, clientId: 'ana', scopes: [], expiresAt: Math.floor(Date.now() / 1000) + 600 });
  },
};

const withHttp = (http: ServeHttpOptions): Partial<ServeOptions> => ({ authenticate: { verifier }, http });

describe('The MCP server under abuse', () => {
  it('answers a request whose target is no URL (`//[`) with 404 and goes on serving', async () => {
    const s = await serving(withHttp({}));
    try {
      const url = new URL(s.url);
      const socket = connect(Number(url.port), url.hostname);
      socket.on('error', () => {});
      const answer = new Promise<string>((resolve) => socket.setEncoding('latin1').once('data', resolve));
      socket.write(`GET //[ HTTP/1.1\r\nhost: ${url.host}\r\n\r\n`);
      assert.match(await answer, /^HTTP\/1\.1 404 /);
      socket.destroy();
      assert.equal(await send(s.url, { authorization: 'Bearer right-token-0123456789' }), 200);
    } finally {
      await s.close();
    }
  });

  it('cuts a connection that pipelines wrong tokens past the free ones: one held answer per connection', async () => {
    const s = await serving(withHttp({ wrongGuesses: { free: 1, delayMs: 600_000, maxDelayMs: 600_000 } }));
    try {
      const url = new URL(s.url);
      const socket = connect(Number(url.port), url.hostname);
      socket.on('error', () => {});
      let closed = false;
      socket.once('close', () => (closed = true));
      // GETs: Node reads the next pipelined request at once when one has no body.
      socket.write(
        `GET ${url.pathname} HTTP/1.1\r\nhost: ${url.host}\r\nauthorization: Bearer guess\r\naccept: text/event-stream\r\n\r\n`.repeat(
          20,
        ),
      );
      await eventually('closed || s.server.heldGuesses > 1', () => closed || s.server.heldGuesses > 1);
      assert.equal(closed, true);
      assert.ok(s.server.heldGuesses <= 1, `${s.server.heldGuesses} answers held`);
      assert.equal(await send(s.url, { authorization: 'Bearer right-token-0123456789' }), 200);
    } finally {
      await s.close();
    }
  });

  it('holds the answer to a wrong bearer token past the free ones, while a right one sent after it is served at once', async () => {
    const s = await serving(withHttp({ wrongGuesses: { free: 2, delayMs: 600_000, maxDelayMs: 600_000 } }));
    try {
      for (let i = 0; i < 2; i++) assert.equal(await send(s.url, { authorization: `Bearer guess-${i}` }), 401);
      let answered = false;
      const wrong = send(s.url, { authorization: 'Bearer guess-3' }).then((status) => ((answered = true), status));
      await eventually('s.server.heldGuesses === 1', () => s.server.heldGuesses === 1);
      assert.equal(await send(s.url, { authorization: 'Bearer right-token-0123456789' }), 200);
      assert.equal(answered, false);
      await s.server.close();
      assert.equal(await wrong, 401);
    } finally {
      await s.close();
    }
  });

  it("slows wrong tokens per client address behind a trusted proxy, so one client's guesses leave another's free ones", async () => {
    const s = await serving(
      withHttp({ trustProxy: 'x-real-ip', wrongGuesses: { free: 1, delayMs: 600_000, maxDelayMs: 600_000 } }),
    );
    try {
      assert.equal(await send(s.url, { authorization: 'Bearer guess', 'x-real-ip': '203.0.113.7' }), 401);
      void send(s.url, { authorization: 'Bearer guess', 'x-real-ip': '203.0.113.7' }).catch(() => {});
      await eventually('s.server.heldGuesses === 1', () => s.server.heldGuesses === 1);
      assert.equal(await send(s.url, { authorization: 'Bearer guess', 'x-real-ip': '203.0.113.8' }), 401);
    } finally {
      await s.close();
    }
  });

  it('cuts a client whose headers do not arrive within headersTimeoutMs', async () => {
    const s = await serving({ http: { headersTimeoutMs: 200, requestTimeoutMs: 200 } });
    try {
      const url = new URL(s.url);
      const socket = connect(Number(url.port), url.hostname);
      let answer = '';
      socket.setEncoding('latin1').on('data', (text: string) => (answer += text));
      socket.write(`POST /mcp HTTP/1.1\r\nhost: ${url.host}\r\nx-slow: `);
      await new Promise((resolve) => socket.once('close', resolve));
      assert.match(answer, /^HTTP\/1\.1 408/);
    } finally {
      await s.close();
    }
  });

  it('closes connections past maxConnections as they arrive', async () => {
    const s = await serving({ http: { maxConnections: 1 } });
    try {
      const url = new URL(s.url);
      const first = connect(Number(url.port), url.hostname);
      await new Promise((resolve) => first.once('connect', resolve));
      const second = connect(Number(url.port), url.hostname);
      second.on('error', () => {});
      await new Promise((resolve) => second.once('close', resolve));
      first.destroy();
    } finally {
      await s.close();
    }
  });

  it('caps the bytes bodies hold at once on a server without tokens (503)', async () => {
    const s = await serving({ http: { maxUnauthenticatedBytes: 4_096 } });
    try {
      const url = new URL(s.url);
      const open = (bytes: number) => {
        const socket = connect(Number(url.port), url.hostname);
        socket.on('error', () => {});
        const status = new Promise<number | null>((resolve) => {
          socket
            .setEncoding('latin1')
            .once('data', (text: string) => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0)));
          socket.once('close', () => resolve(null));
        });
        socket.write(
          `POST /mcp HTTP/1.1\r\nhost: ${url.host}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n`,
        );
        socket.write(`${bytes.toString(16)}\r\n${' '.repeat(bytes)}\r\n`);
        return { socket, status };
      };
      const first = open(3_000);
      await eventually('s.server.unauthenticatedBytes === 3_000', () => s.server.unauthenticatedBytes === 3_000);
      const second = open(3_000);
      assert.equal(await second.status, 503);
      first.socket.destroy();
    } finally {
      await s.close();
    }
  });
});
