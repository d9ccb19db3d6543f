import 'reflect-metadata';
import assert from 'node:assert/strict';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { eventually } from '../eventually.js';
import { modernClient, serving } from './helpers.js';

/** How the server wrote one answer to `res`: its head's length headers, headers flushed alone, chunks written, the end's bytes. */
interface Written {
  method: unknown;
  flushed: boolean;
  writes: number;
  ended: Buffer | undefined;
  contentLength: unknown;
  transferEncoding: unknown;
}

/** Records, for each request, how `res` was written to, then passes it to the handler. */
function recording(res: ServerResponse, method: unknown, log: Written[]): void {
  const written: Written = {
    method,
    flushed: false,
    writes: 0,
    ended: undefined,
    contentLength: undefined,
    transferEncoding: undefined,
  };
  log.push(written);
  const flush = res.flushHeaders.bind(res);
  res.flushHeaders = () => {
    written.flushed = true;
    flush();
  };
  const write = res.write.bind(res) as (...args: unknown[]) => boolean;
  res.write = ((...args: unknown[]) => {
    written.writes++;
    return write(...args);
  }) as ServerResponse['write'];
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
  res.writeHead = ((...args: unknown[]) => {
    const headers = (args.find((arg) => typeof arg === 'object' && arg !== null) ?? {}) as Record<string, unknown>;
    written.contentLength = headers['content-length'];
    written.transferEncoding = headers['transfer-encoding'];
    return writeHead(...args);
  }) as ServerResponse['writeHead'];
  const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
  res.end = ((...args: unknown[]) => {
    const [chunk] = args;
    written.ended = typeof chunk === 'string' || Buffer.isBuffer(chunk) ? Buffer.from(chunk) : undefined;
    return end(...args);
  }) as ServerResponse['end'];
}

/** `serving()`'s server mounted through `handler()` in an app that records how each answer is written. */
async function recorded() {
  const s = await serving();
  const handler = s.server.handler();
  const log: Written[] = [];
  const app = createServer(async (req, res) => {
    let raw = '';
    for await (const chunk of req) raw += String(chunk);
    const body = raw === '' ? undefined : (JSON.parse(raw) as { method?: unknown });
    (req as typeof req & { body?: unknown }).body = body;
    recording(res, body?.method, log);
    await handler(req, res);
  });
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  return {
    ...s,
    url: `http://127.0.0.1:${(app.address() as AddressInfo).port}/mcp`,
    log,
    async close() {
      app.closeAllConnections();
      await new Promise((resolve) => app.close(resolve));
      await s.close();
    },
  };
}

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
};

/** A raw 2026-07-28 `tools/call`, as a client's fetch sends it. */
function rawCall(url: string, id: number, name: string, args: unknown, meta: object = {}, signal?: AbortSignal) {
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': name,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name, arguments: args, _meta: { ...ENVELOPE, ...meta } },
    }),
    ...(signal === undefined ? {} : { signal }),
  });
}

describe('how mcpServer writes its HTTP answers (serveWeb)', () => {
  it('writes a JSON answer whole, with its length, in one write: 32 calls at once each get their own', async () => {
    const s = await recorded();
    try {
      const client = await modernClient(s.url);
      const ids = Array.from({ length: 32 }, (_, i) => `o-${i}`);
      const results = await Promise.all(ids.map((id) => client.call('orders__find_order', { id })));
      assert.deepEqual(
        results.map((result) => result.structuredContent),
        ids.map((id) => ({ id, status: 'shipped' })),
      );
      const calls = s.log.filter((written) => written.method === 'tools/call');
      assert.equal(calls.length, 32);
      for (const written of calls) {
        assert.equal(written.flushed, false, 'no headers sent ahead of the body');
        assert.equal(written.writes, 0, 'no chunk written before the end');
        assert.ok(written.ended !== undefined, 'the body goes with the end');
        assert.equal(written.contentLength, written.ended.length);
        assert.equal(written.transferEncoding, undefined);
        assert.equal((JSON.parse(written.ended.toString('utf8')) as { jsonrpc?: unknown }).jsonrpc, '2.0');
      }
      // On the wire: a length, no chunks, and the body the length says.
      const response = await rawCall(s.url, 7, 'orders__find_order', { id: 'o-7' });
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('transfer-encoding'), null);
      const body = await response.text();
      assert.equal(Number(response.headers.get('content-length')), Buffer.byteLength(body));
      const answer = JSON.parse(body) as { id: number; result: { structuredContent: unknown } };
      assert.equal(answer.id, 7);
      assert.deepEqual(answer.result.structuredContent, { id: 'o-7', status: 'shipped' });
      // A refusal is JSON too, and whole: the ladder's status with its error.
      const unknown = await rawCall(s.url, 8, 'orders__nothing', {});
      const refused = await unknown.text();
      assert.equal(Number(unknown.headers.get('content-length')), Buffer.byteLength(refused));
      assert.match(refused, /Unknown tool/);
      await client.close();
    } finally {
      await s.close();
    }
  });

  it('still streams an SSE answer as it is written: a running call reports progress, and stops when its client goes away', async () => {
    const s = await recorded();
    try {
      const gone = new AbortController();
      const response = await rawCall(s.url, 1, 'orders__slow', { tag: 'sse' }, { progressToken: 'p-1' }, gone.signal);
      assert.equal(response.status, 200);
      assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
      // The progress frame arrives while the call still runs (it waits until stopped).
      const reader = response.body!.getReader();
      let seen = '';
      while (!seen.includes('notifications/progress')) {
        const { value, done } = await reader.read();
        assert.equal(done, false, 'the stream stays open while the call runs');
        seen += Buffer.from(value!).toString('utf8');
      }
      assert.deepEqual(s.ledger.aborted, []);
      const written = s.log.find((entry) => entry.method === 'tools/call')!;
      assert.equal(written.flushed, true, 'an event stream is opened at once');
      gone.abort();
      await eventually('the call stopped once its client went away', () => s.ledger.aborted.includes('sse'));
    } finally {
      await s.close();
    }
  });
});
