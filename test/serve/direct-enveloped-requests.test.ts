import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isJSONRPCRequest, Server, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/server';
import { isEnvelopedRequest, withDirectEnvelopedRequests } from '../../src/serve/direct-enveloped-requests.js';
import { eventually } from '../eventually.js';

const envelope = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' };

const direct: unknown[] = [
  { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', _meta: envelope } },
  { jsonrpc: '2.0', id: 'a', method: 'tools/list', params: { _meta: { ...envelope, progressToken: 'p' } } },
  { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', _meta: { progressToken: -3 } } },
  { jsonrpc: '2.0', id: 3, method: 'ping' },
];

const others: unknown[] = [
  // The Protocol's own checks decide these: the schema refuses them, or they name a related task.
  { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x', _meta: { progressToken: { not: 'a token' } } } },
  { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x', _meta: { progressToken: 1.5 } } },
  { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x', _meta: null } },
  { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x', _meta: [envelope] } },
  { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x', _meta: 'meta' } },
  {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'x', _meta: { ...envelope, 'io.modelcontextprotocol/related-task': { taskId: 't' } } },
  },
  { jsonrpc: '2.0', id: 1.5, method: 'tools/call', params: { _meta: envelope } },
  { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { _meta: envelope }, extra: true },
  { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, _meta: envelope } },
  { jsonrpc: '2.0', id: 1, result: { _meta: envelope } },
];

/** A transport that counts the messages each listener set on it gets: the Protocol's own first, then any set after. */
function countingTransport(): { transport: Transport; counts: number[]; sent: JSONRPCMessage[] } {
  const counts: number[] = [];
  const sent: JSONRPCMessage[] = [];
  let listener: Transport['onmessage'];
  const transport: Transport = {
    start: () => Promise.resolve(),
    close: () => Promise.resolve(),
    send: (message) => {
      sent.push(message);
      return Promise.resolve();
    },
    get onmessage() {
      return listener;
    },
    set onmessage(given) {
      const index = counts.push(0) - 1;
      listener =
        given === undefined
          ? undefined
          : (message, extra) => {
              counts[index]!++;
              given(message, extra);
            };
    },
  };
  return { transport, counts, sent };
}

describe('2026-07-28 requests handed straight to the SDK dispatch', () => {
  it('takes the direct path only for requests the SDK calls requests, _meta checked as it does', () => {
    for (const message of direct) {
      assert.equal(isJSONRPCRequest(message), true, JSON.stringify(message));
      assert.equal(isEnvelopedRequest(message as JSONRPCMessage), true, JSON.stringify(message));
    }
    for (const message of others)
      assert.equal(isEnvelopedRequest(message as JSONRPCMessage), false, JSON.stringify(message));
  });

  it("answers an enveloped request without the Protocol's checks, and leaves the others to them", async () => {
    const server = withDirectEnvelopedRequests(new Server({ name: 's', version: '1' }, { capabilities: {} }));
    const { transport, counts, sent } = countingTransport();
    await server.connect(transport);
    assert.equal(counts.length, 2, "the Protocol's listener, then the direct path's around it");
    transport.onmessage!({ jsonrpc: '2.0', id: 1, method: 'ping', params: { _meta: { progressToken: 'p' } } });
    await eventually('the answer to request 1', () => sent.some((message) => 'id' in message && message.id === 1));
    assert.deepEqual(counts, [0, 1], "the request did not reach the Protocol's checks");
    const related = { 'io.modelcontextprotocol/related-task': { taskId: 't' } };
    transport.onmessage!({ jsonrpc: '2.0', id: 2, method: 'ping', params: { _meta: related } });
    await eventually('the answer to request 2', () => sent.some((message) => 'id' in message && message.id === 2));
    assert.deepEqual(counts, [1, 2], "a request naming a related task went through the Protocol's checks");
    await server.close();
  });
});
