import 'reflect-metadata';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { isJSONRPCRequest, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { Wardrik } from '../../src/index.js';
import { isPlainRequest } from '../../src/serve/direct-requests.js';
import { StdioLines } from '../../src/serve/stdio-lines.js';
import { orderTools } from './helpers.js';
import { eventually } from '../eventually.js';

const plain: unknown[] = [
  { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'orders__find_order', arguments: { id: 'o-1' } } },
  { jsonrpc: '2.0', id: 'a-string-id', method: 'ping' },
  { jsonrpc: '2.0', id: 0, method: 'tools/list', params: {} },
  { jsonrpc: '2.0', id: -7, method: 'anything', params: { task: { ttl: 5 } } },
];

const others: unknown[] = [
  // The Protocol's own checks decide these: the schema refuses them, or they carry `_meta` to check.
  { jsonrpc: '2.0', id: 1.5, method: 'ping' },
  { jsonrpc: '2.0', id: 2 ** 60, method: 'ping' },
  { jsonrpc: '2.0', id: null, method: 'ping' },
  { jsonrpc: '2.0', id: 1, method: 7 },
  { jsonrpc: '1.0', id: 1, method: 'ping' },
  { jsonrpc: '2.0', id: 1, method: 'ping', params: [1] },
  { jsonrpc: '2.0', id: 1, method: 'ping', params: null },
  { jsonrpc: '2.0', id: 1, method: 'ping', extra: true },
  { jsonrpc: '2.0', id: 1, method: 'ping', result: {} },
  { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x', _meta: { progressToken: 1 } } },
  { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x', _meta: { progressToken: { not: 'a token' } } } },
  JSON.parse('{"jsonrpc":"2.0","id":1,"method":"ping","__proto__":{"x":1}}'),
  { jsonrpc: '2.0', method: 'notifications/initialized' },
  { jsonrpc: '2.0', id: 1, result: {} },
  { jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'no' } },
];

describe('Requests handed straight to the SDK dispatch', () => {
  it('takes the direct path only for messages the SDK calls requests, and for the plain ones it does', () => {
    for (const message of plain) {
      assert.equal(isJSONRPCRequest(message), true, JSON.stringify(message));
      assert.equal(isPlainRequest(message as JSONRPCMessage), true, JSON.stringify(message));
    }
    for (const message of others)
      assert.equal(isPlainRequest(message as JSONRPCMessage), false, JSON.stringify(message));
  });

  it('answers plain requests and requests with _meta alike, and leaves a malformed one to the SDK, which answers nothing and reports it', async () => {
    const wardrik = await Wardrik.create({
      store: 'memory:',
      recoverMs: Infinity,
      tools: { orders: orderTools({ refunds: [], aborted: [] }) },
    });
    const warnings: string[] = [];
    const subscription = wardrik.events$.subscribe((event) => {
      if (event.type === 'warning') warnings.push(event.message);
    });
    const input = new PassThrough();
    const output = new PassThrough();
    let written = '';
    output.on('data', (chunk: Buffer) => (written += chunk.toString()));
    const answers = (): Record<string, unknown>[] =>
      written
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    const server = wardrik.mcpServer({ tools: ['orders/*'] });
    try {
      await server.connect(new StdioLines(input, output, 1_000_000));
      const send = (message: object) => input.write(`${JSON.stringify(message)}\n`);
      send({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      });
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      send({ jsonrpc: '2.0', id: 1.5, method: 'ping' });
      send({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'orders__find_order', arguments: { id: 'o-1' } },
      });
      send({
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: 'orders__find_order', arguments: { id: 'o-2' }, _meta: { progressToken: 'p' } },
      });
      send({ jsonrpc: '2.0', id: 4, method: 'ping' });
      await eventually(
        'the answers to requests 2, 3 and 4',
        () =>
          answers().some((answer) => answer.id === 4) &&
          answers().some((answer) => answer.id === 3) &&
          answers().some((answer) => answer.id === 2),
      );
      const byId = new Map(answers().map((answer) => [answer.id, answer]));
      assert.deepEqual((byId.get(2)!.result as { structuredContent: unknown }).structuredContent, {
        id: 'o-1',
        status: 'shipped',
      });
      assert.deepEqual((byId.get(3)!.result as { structuredContent: unknown }).structuredContent, {
        id: 'o-2',
        status: 'shipped',
      });
      assert.deepEqual(byId.get(4)!.result, {});
      // The SDK answers a request whose id is not an integer with nothing, and reports it.
      assert.equal(byId.has(1.5), false);
      assert.equal(answers().length, 4);
      assert.ok(
        warnings.some((message) => /Unknown message type/.test(message)),
        warnings.join('\n'),
      );
    } finally {
      subscription.unsubscribe();
      await server.close();
      await wardrik.close();
    }
  });
});
