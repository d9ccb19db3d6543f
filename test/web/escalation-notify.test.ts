import 'reflect-metadata';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { defineTool, verifyWebhook, Wardrik, type InboxWaitingMessage } from '../../src/index.js';
import { TOKEN } from './helpers.js';
import { eventually } from '../eventually.js';
import { manualTimeContainer } from '../manual-time-container.js';
import { manualTime } from '../../src/testing/index.js';

const SECRET = 'webhook-secret-0123456789';

describe('Escalation notifications', () => {
  it('posts inbox.escalated once for an item unanswered after escalateAfterMs, after its inbox.waiting, signed', async () => {
    const taken: { message: InboxWaitingMessage; delivery: string }[] = [];
    const server = createServer((request, response) => {
      let raw = '';
      request.setEncoding('utf8').on('data', (chunk: string) => (raw += chunk));
      request.on('end', () => {
        if (!verifyWebhook(SECRET, request.headers, raw).ok) return void response.writeHead(401).end();
        taken.push({
          message: JSON.parse(raw) as InboxWaitingMessage,
          delivery: String(request.headers['webhook-id']),
        });
        response.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const time = manualTime(Date.now());
    const wardrik = await Wardrik.create({
      container: manualTimeContainer(time),
      store: 'memory:',
      tools: {
        shop: [defineTool({ name: 'refund', description: 'd', annotations: { idempotent: true }, run: () => 'ok' })],
      },
      policy: { escalateAfterMs: 150 },
    });
    try {
      const web = wardrik.inboxWeb({
        token: TOKEN,
        publicUrl: 'https://ops.example.com/inbox',
        pollMs: 20,
        notify: { webhook: { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, secret: SECRET } },
      });
      const answer = await wardrik.runner.run({ agent: 'a', run: 'r', call: { id: 'c', name: 'shop__refund' } });
      const id = answer.status === 'parked' ? answer.inboxId! : '';
      // Past escalateAfterMs, and a poll after it.
      await time.advance(250);
      await eventually('inbox.escalated to be delivered', () =>
        taken.some((t) => t.message.type === 'inbox.escalated'),
      );
      // A few more polls: nothing is announced twice (closing waits for any delivery they started).
      await time.advance(100);
      await web.close();
      // Sorted: announced in the same poll, the two could arrive in either order.
      assert.deepEqual(taken.map((t) => [t.message.type, t.message.item.id, t.delivery]).sort(), [
        ['inbox.escalated', id, `${id}:escalated`],
        ['inbox.waiting', id, id],
      ]);
      assert.match(
        taken.find((t) => t.message.type === 'inbox.escalated')!.message.text,
        /^Escalated, unanswered for \d+ min: Approval needed: shop\/refund/,
      );
    } finally {
      await wardrik.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
