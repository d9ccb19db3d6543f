import 'reflect-metadata';
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, it } from 'node:test';
import { defineTool, Wardrik, type InboxWaitingMessage } from '../../src/index.js';
import { webhookReceiver } from '../../examples/web/webhook-receiver.js';
import { TOKEN } from './helpers.js';
import { eventually } from '../eventually.js';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

async function listening(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
}

function closed(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** One real message from Wardrik's notifier, as an attacker on the path would capture it: headers and raw body. */
async function capturedMessage(): Promise<{ headers: IncomingHttpHeaders; raw: string }> {
  const captured: { headers: IncomingHttpHeaders; raw: string }[] = [];
  const tap = createServer((request, response) => {
    let raw = '';
    request.setEncoding('utf8').on('data', (chunk: string) => (raw += chunk));
    request.on('end', () => {
      captured.push({ headers: request.headers, raw });
      response.writeHead(204).end();
    });
  });
  const url = await listening(tap);
  const wardrik = await Wardrik.create({
    store: 'memory:',
    tools: {
      shop: [
        defineTool({
          name: 'refund',
          description: 'Refund an order.',
          input: {
            type: 'object',
            properties: { orderId: { type: 'string' } },
            required: ['orderId'],
            additionalProperties: false,
          },
          run: () => 'refunded',
        }),
      ],
    },
  });
  try {
    wardrik.inboxWeb({
      token: TOKEN,
      publicUrl: 'https://ops.example.com/inbox',
      pollMs: 20,
      notify: { webhook: { url, secret: SECRET } },
    });
    const answer = await wardrik.runner.run({
      agent: 'support',
      run: 'r1',
      call: { id: 'c1', name: 'shop__refund', arguments: { orderId: 'ord_1' } },
    });
    assert.equal(answer.status, 'parked');
    await eventually('captured.length === 1', () => captured.length === 1);
    return captured[0]!;
  } finally {
    await wardrik.close();
    await closed(tap);
  }
}

/** Sends the captured headers and body again, as they were (or with `change` applied). */
function replay(
  url: string,
  message: { headers: IncomingHttpHeaders; raw: string },
  change: { headers?: Record<string, string>; raw?: string } = {},
) {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(message.headers)) {
    if (typeof value === 'string' && !['host', 'content-length', 'connection'].includes(name)) headers[name] = value;
  }
  return fetch(url, { method: 'POST', headers: { ...headers, ...change.headers }, body: change.raw ?? message.raw });
}

describe('The documented webhook receiver against a replay', () => {
  const closing: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const close of closing.splice(0).reverse()) await close();
  });

  it('hands a captured message on once: sent again at once it is answered 2xx and not handed on, sent again after 5 minutes it is refused', async () => {
    const message = await capturedMessage();
    let now = Date.now();
    const handed: InboxWaitingMessage[] = [];
    const receiver = webhookReceiver(SECRET, (received) => handed.push(received), { now: () => now });
    const url = await listening(receiver);
    closing.push(() => closed(receiver));
    assert.equal((await replay(url, message)).status, 204);
    assert.equal(handed.length, 1);
    assert.equal(handed[0]!.item.tool, 'shop/refund');
    // The same message again within the tolerance: taken before, so not handed on a second time.
    assert.equal((await replay(url, message)).status, 204);
    assert.equal(handed.length, 1);
    // Five minutes and a second later, on the receiver's clock: too old, whoever sends it.
    now += 5 * 60_000 + 1_000;
    const late = await replay(url, message);
    assert.equal(late.status, 401);
    assert.match(await late.text(), /webhook-timestamp is 30\d s old, outside the tolerance of 300 s/);
    assert.equal(handed.length, 1);
  });

  it('refuses a captured message with a fresh timestamp, another id or another body: the signature covers all three', async () => {
    const message = await capturedMessage();
    const handed: InboxWaitingMessage[] = [];
    // Far enough from the captured time that a fresh timestamp differs from it.
    const now = Date.now() + 120_000;
    const receiver = webhookReceiver(SECRET, (received) => handed.push(received), { now: () => now });
    const url = await listening(receiver);
    closing.push(() => closed(receiver));
    const fresh = await replay(url, message, { headers: { 'webhook-timestamp': String(Math.floor(now / 1_000)) } });
    assert.equal(fresh.status, 401);
    assert.match(await fresh.text(), /no v1 signature in webhook-signature matches/);
    assert.equal((await replay(url, message, { headers: { 'webhook-id': 'another-delivery' } })).status, 401);
    assert.equal((await replay(url, message, { raw: message.raw.replace('ord_1', 'ord_2') })).status, 401);
    assert.equal((await replay(url, message, { headers: { 'webhook-signature': '' } })).status, 401);
    assert.deepEqual(handed, []);
  });

  it('refuses a body over 100 KB unread, with 413', async () => {
    const handed: InboxWaitingMessage[] = [];
    const receiver = webhookReceiver(SECRET, (received) => handed.push(received));
    const url = await listening(receiver);
    closing.push(() => closed(receiver));
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: 'x'.repeat(200 * 1024),
    });
    assert.equal(response.status, 413);
    assert.deepEqual(handed, []);
  });
});
