import 'reflect-metadata';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import {
  isJSONRPCNotification,
  isJSONRPCRequest,
  type JSONRPCMessage,
  type Transport,
} from '@modelcontextprotocol/server';
import { defineTool, Wardrik } from '../../src/index.js';
import { DirectWire, goesDirect } from '../../src/serve/direct-wire.js';
import { StdioLines } from '../../src/serve/stdio-lines.js';
import { eventually } from '../eventually.js';

const envelope = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};

const direct: unknown[] = [
  { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: {}, _meta: envelope } },
  { jsonrpc: '2.0', id: 'a', method: 'tools/list', params: { _meta: { ...envelope, progressToken: 'p' } } },
  { jsonrpc: '2.0', id: 2, method: 'tasks/get', params: { taskId: 't', _meta: envelope } },
  { jsonrpc: '2.0', id: 3, method: 'server/discover', params: { _meta: envelope } },
];

const others: unknown[] = [
  // The entry itself answers these, or looks at them before it passes them on.
  { jsonrpc: '2.0', id: 1, method: 'subscriptions/listen', params: { _meta: envelope, notifications: {} } },
  { jsonrpc: '2.0', id: 1, method: 'initialize', params: { _meta: envelope } },
  { jsonrpc: '2.0', id: 1, method: 'notifications/cancelled', params: { requestId: 2, _meta: envelope } },
  { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2, _meta: envelope } },
  // Less plain than the schema's request: the entry's and the Protocol's own checks decide them.
  { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x', _meta: { progressToken: { not: 'a token' } } } },
  { jsonrpc: '2.0', id: 1.5, method: 'tools/call', params: { _meta: envelope } },
  { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { _meta: envelope }, extra: true },
  { jsonrpc: '2.0', id: 1, result: { _meta: envelope } },
];

/** A transport standing for the connection: what it is sent, and a way to hand it messages. */
function connection(): { transport: Transport; sent: JSONRPCMessage[]; receive(message: unknown): void } {
  const sent: JSONRPCMessage[] = [];
  const transport: Transport = {
    start: () => Promise.resolve(),
    close: () => Promise.resolve(),
    send: (message) => {
      sent.push(message);
      return Promise.resolve();
    },
  };
  return { transport, sent, receive: (message) => transport.onmessage!(message as JSONRPCMessage) };
}

describe('2026-07-28 requests passed past the stdio entry once it has pinned its server', () => {
  it('passes on directly only requests the pinned entry would pass on unchanged', () => {
    for (const message of direct) {
      assert.equal(isJSONRPCRequest(message), true, JSON.stringify(message));
      assert.equal(isJSONRPCNotification(message), false, JSON.stringify(message));
      assert.equal(goesDirect(message as JSONRPCMessage), true, JSON.stringify(message));
    }
    for (const message of others) assert.equal(goesDirect(message as JSONRPCMessage), false, JSON.stringify(message));
  });

  it('takes the direct path from the request after the pinning one, answers it straight to the wire, and stops when the channel closes', async () => {
    const wire = connection();
    const direct = new DirectWire(wire.transport);
    const atEntry: JSONRPCMessage[] = [];
    direct.onmessage = (message) => atEntry.push(message);
    await direct.start();
    // The entry's channel to the server: what the server was handed, and what the channel itself sent.
    const atServer: JSONRPCMessage[] = [];
    const viaChannel: JSONRPCMessage[] = [];
    const channel: Transport = {
      start: () => Promise.resolve(),
      close: () => Promise.resolve(),
      send: (message) => {
        viaChannel.push(message);
        return Promise.resolve();
      },
      onmessage: (message) => atServer.push(message),
      onclose: () => {},
    };
    direct.follow(channel);
    const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'e', _meta: envelope } });
    const discover = { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: envelope } };
    wire.receive(discover);
    assert.deepEqual(atEntry, [discover], 'nothing is pinned before the entry passes a request on');
    channel.onmessage!(discover as JSONRPCMessage);
    wire.receive(call(2));
    assert.equal(atEntry.length, 2, 'server/discover does not pin: the probe may still be discarded');
    channel.onmessage!(call(2) as JSONRPCMessage);
    wire.receive(call(3));
    const listen = { jsonrpc: '2.0', id: 4, method: 'subscriptions/listen', params: { _meta: envelope } };
    wire.receive(listen);
    assert.deepEqual(atEntry.slice(2), [listen], 'the call after the pinning one went straight to the server');
    assert.deepEqual(atServer.slice(-1), [call(3)]);
    await channel.send({ jsonrpc: '2.0', id: 2, result: { content: [] } });
    await channel.send({ jsonrpc: '2.0', id: 3, result: { content: [] } });
    await channel.send({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    assert.deepEqual(
      viaChannel.map((message) => ('id' in message ? message.id : 'method' in message && message.method)),
      [2, 'notifications/tools/list_changed'],
      "the pinning call's answer and every notification went through the channel",
    );
    assert.deepEqual(
      wire.sent,
      [{ jsonrpc: '2.0', id: 3, result: { content: [] } }],
      'the direct call was answered directly',
    );
    // A cancelled request is answered by nobody; were it answered anyway, the answer takes the channel.
    wire.receive(call(10));
    const cancel = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 10, _meta: envelope } };
    wire.receive(cancel);
    assert.deepEqual(atEntry.slice(-1), [cancel], 'the cancel went to the entry, which passes it on');
    await channel.send({ jsonrpc: '2.0', id: 10, result: { content: [] } });
    assert.deepEqual(viaChannel.slice(-1), [{ jsonrpc: '2.0', id: 10, result: { content: [] } }]);
    wire.receive(call(5));
    channel.onclose!();
    await channel.send({ jsonrpc: '2.0', id: 5, result: { content: [] } });
    assert.equal(wire.sent.length, 1, 'an answer after the channel closed is dropped, as the channel drops it');
    wire.receive(call(6));
    assert.deepEqual(atEntry.slice(-1), [call(6)], 'once the channel is closed, the entry decides again');
  });

  it('serves a pinned stdio connection: calls, a listen and its cancel, a rejected initialize, all at once', async () => {
    const echo = defineTool({
      name: 'echo',
      description: 'Echoes its text.',
      input: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      annotations: { readOnly: true },
      run: (args: { text: string }) => args.text,
    });
    const wardrik = await Wardrik.create({ store: 'memory:', recoverMs: Infinity, tools: { t: [echo] } });
    const server = wardrik.mcpServer({ tools: ['t/*'], names: 'bare' });
    const input = new PassThrough();
    const output = new PassThrough();
    let written = '';
    output.on('data', (chunk: Buffer) => (written += chunk.toString()));
    const answers = () =>
      written
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown> & { params?: { _meta?: Record<string, unknown> } });
    const send = (...messages: object[]) => input.write(messages.map((m) => `${JSON.stringify(m)}\n`).join(''));
    const call = (id: number, text: string) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text }, _meta: envelope },
    });
    try {
      await server.connect(new StdioLines(input, output, 1_000_000));
      send({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: envelope } }, call(2, 'pins'));
      await eventually('the answer to the pinning call', () => answers().some((answer) => answer.id === 2));
      const listen = { _meta: envelope, notifications: { toolsListChanged: true } };
      send(
        call(3, 'a'),
        { jsonrpc: '2.0', id: 4, method: 'subscriptions/listen', params: listen },
        call(5, 'b'),
        { jsonrpc: '2.0', id: 6, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {} } },
        { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'echo', _meta: { progressToken: 1.5 } } },
        { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 4, _meta: envelope } },
        call(8, 'c'),
        { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'echo', arguments: 'x', _meta: envelope } },
      );
      await eventually('answers to 3, 5, 6, 8 and 9', () =>
        [3, 5, 6, 8, 9].every((id) => answers().some((answer) => answer.id === id)),
      );
      const byId = new Map(answers().map((answer) => [answer.id, answer]));
      const text = (id: number) => (byId.get(id)!.result as { content: { text: string }[] }).content[0]!.text;
      assert.deepEqual([text(2), text(3), text(5), text(8)], ['pins', 'a', 'b', 'c']);
      const labels = (id: number) =>
        (byId.get(id)!.result as { _meta: Record<string, unknown> })._meta['wardrik/labels'];
      assert.deepEqual([labels(3), labels(5), labels(8)], [labels(2), labels(2), labels(2)]);
      // The entry still serves what it serves: the listen is acknowledged, then ended by its cancel (no
      // answer to a cancelled request), and a 2025 opening on this connection is refused.
      assert.ok(answers().some((answer) => answer.method === 'notifications/subscriptions/acknowledged'));
      assert.equal(byId.has(4), false);
      assert.equal((byId.get(6)!.error as { code: number }).code, -32022, JSON.stringify(byId.get(6)));
      assert.equal((byId.get(9)!.error as { code: number }).code, -32602, JSON.stringify(byId.get(9)));
      // A request the schema refuses (a progress token that is no integer) gets no answer, as the SDK's checks give it none.
      assert.equal(byId.has(7), false);
    } finally {
      await server.close();
      await wardrik.close();
    }
  });
});
