import 'reflect-metadata';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, afterEach, beforeEach, describe, it } from 'node:test';
import { Wardrik } from '../../src/index.js';
import { sqliteStores, webRig, type WebRig } from './helpers.js';

const stores = sqliteStores();
after(() => stores.removeAll());

/** What a body parser in front of the inbox leaves: the stream read to its end, and what it made of it. */
type Parsed = 'object' | 'buffer' | 'string' | 'nothing';

/** Reads the whole body first, as Express's json(), Nest's body parser and Fastify do, then hands the request on. */
function parseFirst(request: IncomingMessage, parsed: Parsed): Promise<void> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const target = request as IncomingMessage & { body?: unknown };
      if (text === '') return resolve(); // a GET: nothing to parse
      if (parsed === 'object') target.body = JSON.parse(text);
      if (parsed === 'buffer') target.body = Buffer.from(text);
      if (parsed === 'string') target.body = text;
      resolve();
    });
  });
}

describe('The inbox API behind a body parser', () => {
  let app: Server;
  let appUrl: string;
  let rig: WebRig;
  let parsed: Parsed = 'object';
  beforeEach(async () => {
    const authenticate = (request: IncomingMessage) => request.headers['x-app-user'] as string | undefined;
    rig = await webRig(stores.url(), { authenticate, basePath: '/ops/inbox' });
    app = createServer((request, response) => {
      void parseFirst(request, parsed).then(() => rig.web.handler(request, response));
    });
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    await new Promise((resolve) => app.close(resolve));
    await rig.close();
  });

  const deny = async (reason: unknown) => {
    const headers = { 'x-app-user': 'dana@example.com' };
    const session = (await (await fetch(`${appUrl}/ops/inbox/api/session`, { headers })).json()) as {
      csrfToken: string;
    };
    return fetch(`${appUrl}/ops/inbox/api/items/${rig.seeded.batch.park}/deny`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', 'x-wardrik-csrf': session.csrfToken, origin: appUrl },
      body: JSON.stringify({ reason }),
    });
  };

  for (const kind of ['object', 'buffer', 'string'] as const) {
    it(`answers with the body the parser left on req.body (${kind})`, async () => {
      parsed = kind;
      const response = await deny('not today');
      assert.equal(response.status, 200, await response.clone().text());
      const item = await rig.seeded.node.inbox.get(rig.seeded.batch.park);
      assert.equal(item?.by, 'dana@example.com');
      assert.equal(item?.status, 'denied');
    });
  }

  it('refuses at once, saying why, when the stream was read and nothing left on req.body', async () => {
    parsed = 'nothing';
    const response = await deny('not today');
    assert.equal(response.status, 400);
    const body = (await response.json()) as { error: { code: string; message: string } };
    assert.equal(body.error.code, 'usage');
    assert.match(body.error.message, /already read/);
    assert.equal((await rig.seeded.node.inbox.get(rig.seeded.batch.park))?.status, 'pending');
  });

  it('still holds a parsed body to the depth limit', async () => {
    parsed = 'object';
    let deep: unknown = 'x';
    for (let level = 0; level < 80; level++) deep = { deep };
    const response = await deny(deep);
    assert.equal(response.status, 400);
    assert.match(((await response.json()) as { error: { message: string } }).error.message, /nested more than 64/);
  });
});

describe('The MCP handler behind a body parser', () => {
  for (const kind of ['object', 'buffer', 'string'] as const) {
    it(`starts a session from the body the parser left on req.body (${kind})`, async () => {
      const wardrik = await Wardrik.create({ store: 'memory:', recoverMs: Infinity });
      const handle = wardrik.mcpServer({ tools: ['*'], authenticate: false }).handler();
      const app = createServer((request, response) => {
        void parseFirst(request, kind).then(() => handle(request, response));
      });
      await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
      try {
        const response = await fetch(`http://127.0.0.1:${(app.address() as AddressInfo).port}/mcp`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'initialize',
            params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } },
          }),
        });
        assert.equal(response.status, 200, await response.clone().text());
        assert.ok(response.headers.get('mcp-session-id'));
        await response.text();
      } finally {
        app.closeAllConnections();
        await new Promise((resolve) => app.close(resolve));
        await wardrik.close();
      }
    });
  }
});
