import 'reflect-metadata';
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { ConfigurationError, defineTool, verifyWebhook, Wardrik, type InboxWaitingMessage } from '../../src/index.js';
import { TOKEN } from './helpers.js';
import { eventually } from '../eventually.js';

/** A Standard Webhooks secret: "whsec_" and the base64 of 24 random bytes. */
const WHSEC = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
/** A secret of the kind Wardrik took before: any 16 characters or more, used as its own bytes. */
const PLAIN = 'webhook-secret-0123456789';

/**
 * Real deliveries from Wardrik's notifier to a receiver on 127.0.0.1 that checks each with the
 * `standardwebhooks` package (the Standard Webhooks reference library for JavaScript), as a user would.
 */
async function deliveredTo(secret: string, library: Webhook) {
  const checked: { headers: IncomingHttpHeaders; payload: InboxWaitingMessage; raw: string }[] = [];
  const refused: string[] = [];
  const server = createServer((request, response) => {
    let raw = '';
    request.setEncoding('utf8').on('data', (chunk: string) => (raw += chunk));
    request.on('end', () => {
      try {
        const payload = library.verify(raw, request.headers as Record<string, string>) as InboxWaitingMessage;
        checked.push({ headers: request.headers, payload, raw });
        response.writeHead(204).end();
      } catch (error) {
        refused.push((error as Error).message);
        response.writeHead(401).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const wardrik = await Wardrik.create({
    store: 'memory:',
    tools: {
      shop: [
        defineTool({
          name: 'refund',
          description: 'Refund an order.',
          input: { type: 'object', properties: { orderId: { type: 'string' } } },
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
      notify: { webhook: { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, secret } },
    });
    const answer = await wardrik.runner.run({
      agent: 'support',
      run: 'r1',
      call: { id: 'c1', name: 'shop__refund', arguments: { orderId: 'ord_1 — ünïcödé' } },
    });
    assert.equal(answer.status, 'parked');
    await eventually('checked.length + refused.length === 1', () => checked.length + refused.length === 1);
    return { checked, refused, id: answer.status === 'parked' ? answer.inboxId : undefined };
  } finally {
    await wardrik.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** Headers `standardwebhooks` signs a body with, at `date`. */
function signed(library: Webhook, id: string, date: Date, body: string): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(date.getTime() / 1_000)),
    'webhook-signature': library.sign(id, date, body),
  };
}

describe('Webhook signatures (Standard Webhooks)', () => {
  it('signs every delivery so that the standardwebhooks package verifies it at the wire, with a whsec_ secret', async () => {
    const { checked, refused, id } = await deliveredTo(WHSEC, new Webhook(WHSEC));
    assert.deepEqual(refused, []);
    const [{ headers, payload, raw }] = checked as [(typeof checked)[0]];
    assert.equal(headers['webhook-id'], id);
    assert.equal(payload.item.id, id);
    assert.equal(payload.item.arguments && (payload.item.arguments as { orderId: string }).orderId, 'ord_1 — ünïcödé');
    assert.equal(headers['webhook-timestamp'], String(Math.floor(payload.sentAt / 1_000)));
    assert.match(String(headers['webhook-signature']), /^v1,[A-Za-z0-9+/]{43}=$/);
    // The old header is gone: it signed the body alone, so a captured message could be sent again.
    assert.equal(headers['x-wardrik-signature'], undefined);
    assert.ok(verifyWebhook(WHSEC, headers as Record<string, string>, raw).ok);
  });

  it('is verified by standardwebhooks with { format: "raw" } when the secret is a plain string, as secrets were before', async () => {
    const { checked, refused } = await deliveredTo(PLAIN, new Webhook(PLAIN, { format: 'raw' }));
    assert.deepEqual(refused, []);
    assert.equal(checked.length, 1);
  });

  it('is refused by standardwebhooks under another secret', async () => {
    const { checked, refused } = await deliveredTo(
      WHSEC,
      new Webhook('whsec_' + Buffer.alloc(24, 7).toString('base64')),
    );
    assert.deepEqual(checked, []);
    assert.deepEqual(refused, ['No matching signature found']);
  });

  describe('verifyWebhook', () => {
    const library = new Webhook(WHSEC);
    const sentAt = new Date(1_796_000_000_000);
    const body = '{"type":"inbox.waiting","text":"Approval needed"}';
    const headers = signed(library, 'item-1', sentAt, body);
    const at = (ms: number) => ({ now: () => sentAt.getTime() + ms });

    it('accepts what standardwebhooks signs, as a record of headers or a fetch Headers, a string body or bytes', () => {
      assert.deepEqual(verifyWebhook(WHSEC, headers, body, at(0)), {
        ok: true,
        id: 'item-1',
        sentAt: sentAt.getTime(),
      });
      assert.ok(verifyWebhook(WHSEC, new Headers(headers), Buffer.from(body), at(0)).ok);
      const raw = new Webhook(PLAIN, { format: 'raw' });
      assert.ok(verifyWebhook(PLAIN, signed(raw, 'item-1', sentAt, body), body, at(0)).ok);
      // Node gives headers lower-cased; another framework may not.
      assert.ok(
        verifyWebhook(
          WHSEC,
          {
            'Webhook-Id': headers['webhook-id']!,
            'Webhook-Timestamp': headers['webhook-timestamp']!,
            'Webhook-Signature': headers['webhook-signature']!,
          },
          body,
          at(0),
        ).ok,
      );
    });

    it('refuses a message sent more than the tolerance ago or ahead: 5 minutes unless set', () => {
      assert.ok(verifyWebhook(WHSEC, headers, body, at(300_000)).ok);
      assert.ok(verifyWebhook(WHSEC, headers, body, at(-300_000)).ok);
      assert.deepEqual(verifyWebhook(WHSEC, headers, body, at(301_000)), {
        ok: false,
        reason:
          'webhook-timestamp is 301 s old, outside the tolerance of 300 s: a message sent again later, or a clock that is off',
      });
      assert.match(
        (verifyWebhook(WHSEC, headers, body, at(-301_000)) as { reason: string }).reason,
        /^webhook-timestamp is 301 s ahead/,
      );
      assert.equal(verifyWebhook(WHSEC, headers, body, { ...at(61_000), toleranceMs: 60_000 }).ok, false);
      assert.throws(
        () => verifyWebhook(WHSEC, headers, body, { toleranceMs: -1 }),
        /verifyWebhook: toleranceMs must be a number of milliseconds of at least 0; got -1/,
      );
    });

    it('refuses a changed body, id or timestamp, another secret, and a missing or malformed header', () => {
      const refused = (h: Record<string, string>, b = body, secret = WHSEC) => {
        const result = verifyWebhook(secret, h, b, at(0));
        return result.ok ? 'accepted' : result.reason;
      };
      const noMatch = /^no v1 signature in webhook-signature matches/;
      assert.match(refused(headers, body.replace('Approval', 'approval')), noMatch);
      assert.match(refused({ ...headers, 'webhook-id': 'item-2' }), noMatch);
      assert.match(
        refused({ ...headers, 'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1_000) + 1) }),
        noMatch,
      );
      assert.match(refused(headers, body, 'whsec_' + Buffer.alloc(24, 7).toString('base64')), noMatch);
      assert.match(refused(headers, body, PLAIN), noMatch);
      assert.match(
        refused({ ...headers, 'webhook-signature': headers['webhook-signature']!.replace('v1,', 'v1a,') }),
        noMatch,
      );
      // One message, one spelling: a receiver that removes repeats by header must not be given another.
      const signature = headers['webhook-signature']!;
      assert.match(refused({ ...headers, 'webhook-timestamp': `00${headers['webhook-timestamp']!}` }), noMatch);
      assert.match(refused({ ...headers, 'webhook-signature': `${signature}!!` }), noMatch);
      assert.match(
        refused({
          ...headers,
          'webhook-signature': signature.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''),
        }),
        noMatch,
      );
      const { ['webhook-id']: _id, ...noId } = headers;
      assert.equal(
        refused(noId),
        'the webhook-id, webhook-timestamp and webhook-signature headers must each come once',
      );
      // Node gives a header sent twice as a list: which one was signed is not for the receiver to guess.
      assert.equal(verifyWebhook(WHSEC, { ...headers, 'webhook-id': ['item-1', 'item-1'] }, body, at(0)).ok, false);
      for (const timestamp of ['1796000000.5', '1.796e9', '-1796000000', '99999999999999']) {
        assert.equal(
          refused({ ...headers, 'webhook-timestamp': timestamp }),
          'webhook-timestamp is not whole seconds since the epoch',
          timestamp,
        );
      }
    });

    it('accepts a message whose webhook-signature lists several signatures, one of them right (a secret being rotated)', () => {
      const old = new Webhook('whsec_' + Buffer.alloc(32, 1).toString('base64'));
      const both = `${old.sign('item-1', sentAt, body)} ${headers['webhook-signature']!}`;
      assert.ok(verifyWebhook(WHSEC, { ...headers, 'webhook-signature': both }, body, at(0)).ok);
    });

    it('refuses a whsec_ secret that is not base64 of 24 to 64 bytes, here and in inboxWeb at start-up, naming the fix', async () => {
      const tooShort = 'whsec_' + Buffer.alloc(16).toString('base64');
      assert.throws(
        () => verifyWebhook(tooShort, headers, body),
        (error: unknown) =>
          error instanceof ConfigurationError &&
          /holds 16 bytes\. Make one with: echo "whsec_\$\(openssl rand -base64 32\)"/.test(error.message),
      );
      const wardrik = await Wardrik.create({ store: 'memory:' });
      try {
        assert.throws(
          () =>
            wardrik.inboxWeb({
              token: TOKEN,
              notify: { webhook: { url: 'http://127.0.0.1:9/', secret: 'whsec_not base64 at all!' } },
            }),
          /^ConfigurationError: notify\.webhook\.secret starts with "whsec_", so it must be a Standard Webhooks secret: "whsec_" and the base64 of 24 to 64 random bytes, but what follows is not base64\./,
        );
      } finally {
        await wardrik.close();
      }
    });
  });
});
