import 'reflect-metadata';
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, afterEach, describe, it } from 'node:test';
import { defineTool, Wardrik, type InboxWaitingMessage, type WardrikEvent } from '../../src/index.js';
import { sqliteStores, TOKEN } from './helpers.js';
import { eventually } from '../eventually.js';

const SECRET = 'webhook-secret-0123456789';
/** What express.json() and most body parsers take unless told otherwise. */
const RECEIVER_LIMIT = 100 * 1024;
const stores = sqliteStores();
after(() => stores.removeAll());

interface Request {
  readonly headers: IncomingHttpHeaders;
  readonly raw: string;
  readonly message: InboxWaitingMessage;
}

/**
 * A webhook receiver on 127.0.0.1 that, like express.json(), answers 413 to a body over 100 KB without
 * reading it, and otherwise answers as `reply` says (200 unless it answers itself and returns false).
 */
async function receiver(reply: (request: Request, response: ServerResponse) => boolean = () => true) {
  const taken: Request[] = [];
  const refused: number[] = [];
  const server = createServer((request, response) => {
    if (Number(request.headers['content-length']) > RECEIVER_LIMIT) {
      refused.push(Number(request.headers['content-length']));
      request.resume();
      response.writeHead(413).end('request entity too large');
      return;
    }
    let raw = '';
    request.setEncoding('utf8').on('data', (chunk: string) => (raw += chunk));
    request.on('end', () => {
      const received = { headers: request.headers, raw, message: JSON.parse(raw) as InboxWaitingMessage };
      if (!reply(received, response)) return;
      taken.push(received);
      response.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    taken,
    refused,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A node whose refunds and e-mails ask a person, with its inbox notifying `hook`. */
async function node(hook: string, retry: { baseDelayMs: number; maxDelayMs: number }, store = 'memory:') {
  const wardrik = await Wardrik.create({
    store,
    recoverMs: Infinity,
    tools: {
      shop: [
        defineTool({
          name: 'refund',
          description: 'Refund an order.',
          input: {
            type: 'object',
            properties: { orderId: { type: 'string' }, amountCents: { type: 'integer' } },
            required: ['orderId'],
            additionalProperties: false,
          },
          run: () => 'refunded',
        }),
        defineTool({
          name: 'send_email',
          description: 'Send an email.',
          input: {
            type: 'object',
            properties: { to: { type: 'string' } },
            required: ['to'],
            additionalProperties: false,
          },
          run: () => 'sent',
        }),
      ],
    },
  });
  const events: WardrikEvent[] = [];
  wardrik.events$.subscribe((event) => events.push(event));
  wardrik.inboxWeb({
    token: TOKEN,
    publicUrl: 'https://ops.example.com/inbox',
    pollMs: 20,
    notify: { webhook: { url: hook, secret: SECRET, retry } },
  });
  let n = 0;
  const park = async (name: string, args: unknown): Promise<string> => {
    const answer = await wardrik.runner.run({
      agent: 'support',
      run: `r${++n}`,
      call: { id: 'c1', name, arguments: args },
    });
    assert.equal(answer.status, 'parked');
    return answer.status === 'parked' ? answer.inboxId! : '';
  };
  return { wardrik, events, park };
}

const announced = (taken: readonly Request[], id: string) => taken.some((request) => request.message.item.id === id);

describe('Inbox notifications when deliveries fail', () => {
  const closing: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const close of closing.splice(0).reverse()) await close();
  });

  it('announces every item when four calls carry 120 000-character orderIds and the receiver refuses bodies over 100 KB', async () => {
    const hook = await receiver();
    closing.push(hook.close);
    const { wardrik, events, park } = await node(hook.url, { baseDelayMs: 5, maxDelayMs: 20 });
    closing.push(() => wardrik.close());
    const large: string[] = [];
    for (let i = 0; i < 4; i++)
      large.push(await park('shop__refund', { orderId: `ord_${i}_${'x'.repeat(120_000)}`, amountCents: 1500 }));
    // Each of the four has been tried once (refused before the fix, taken cut down after it).
    await eventually(
      'hook.refused.length + hook.taken.length >= 4',
      () => hook.refused.length + hook.taken.length >= 4,
    );
    const small = await park('shop__send_email', { to: 'dana@example.com' });
    await eventually(
      'announced(hook.taken, small) && large.every((id) => announced(hook.taken, id))',
      () => announced(hook.taken, small) && large.every((id) => announced(hook.taken, id)),
    );
    assert.deepEqual(hook.refused, []);
    for (const id of large) {
      const { raw, message } = hook.taken.find((request) => request.message.item.id === id)!;
      assert.ok(raw.length < 16_384, `the message is ${raw.length} characters`);
      assert.equal(message.item.arguments, undefined);
      assert.deepEqual(message.item.argumentsCut, {
        characters: JSON.stringify({ orderId: `ord_0_${'x'.repeat(120_000)}`, amountCents: 1500 }).length,
        limit: 8_000,
      });
      assert.match(
        message.text,
        /^Approval needed: shop\/refund \{"orderId":"ord_\d_x+… \(120\d+ characters in all; the page shows them whole\)/,
      );
      // The item itself, which the page shows, keeps them whole.
      assert.equal(((await wardrik.inbox.get(id))!.arguments as { orderId: string }).orderId.length, 120_006);
    }
    assert.deepEqual(hook.taken.find((request) => request.message.item.id === small)!.message.item.arguments, {
      to: 'dana@example.com',
    });
    assert.deepEqual(
      events.filter((event) => event.type === 'warning'),
      [],
    );
  });

  it("never lets one item's failures delay another item's first delivery: retries that hang hold no slot a first delivery needs", async () => {
    const hanging: ServerResponse[] = [];
    const tried = new Set<string>();
    // Mail to failing@ is refused with 503 the first time and hangs on every retry.
    const hook = await receiver(({ message }, response) => {
      if (!JSON.stringify(message.item.arguments).includes('failing@')) return true;
      if (tried.has(message.item.id)) hanging.push(response);
      else {
        tried.add(message.item.id);
        response.writeHead(503).end('busy');
      }
      return false;
    });
    closing.push(hook.close);
    const { wardrik, park } = await node(hook.url, { baseDelayMs: 5, maxDelayMs: 20 });
    closing.push(async () => {
      for (const response of hanging) response.writeHead(503).end();
      await wardrik.close();
    });
    for (let i = 0; i < 6; i++) await park('shop__send_email', { to: `failing@example.com #${i}` });
    await eventually('tried.size === 6 && hanging.length >= 2', () => tried.size === 6 && hanging.length >= 2);
    const fresh = await park('shop__send_email', { to: 'dana@example.com' });
    await eventually('announced(hook.taken, fresh)', () => announced(hook.taken, fresh));
    // Announced while every retry still hangs: it waited for none of them to time out.
    assert.ok(hanging.every((response) => !response.writableEnded && !response.destroyed));
  });

  it('does not retry a message the receiver refuses for good (a 4xx but 408 and 429), and reports it as notify.failed; a 429 is retried after its Retry-After', async () => {
    const statuses = new Map([
      ['gone@', 410],
      ['bad@', 400],
      ['limited@', 429],
      ['patient@', 429],
      ['slow@', 408],
    ]);
    // limited@ asks for a second; patient@ for an hour, which maxDelayMs (1 s here) caps.
    const retryAfter: Record<string, string> = { 'limited@example.com': '1', 'patient@example.com': '3600' };
    const requests = new Map<string, number>();
    const hook = await receiver(({ message }, response) => {
      const to = (message.item.arguments as { to: string }).to;
      const tries = (requests.get(to) ?? 0) + 1;
      requests.set(to, tries);
      const status = [...statuses].find(([prefix]) => to.startsWith(prefix))?.[1];
      // 429 and 408 only the first time: they are retried, and then taken.
      if (status === undefined || ((status === 429 || status === 408) && tries > 1)) return true;
      response.writeHead(status, to in retryAfter ? { 'retry-after': retryAfter[to]! } : {}).end('no');
      return false;
    });
    closing.push(hook.close);
    const { wardrik, events, park } = await node(hook.url, { baseDelayMs: 1, maxDelayMs: 1_000 });
    closing.push(() => wardrik.close());
    const gone = await park('shop__send_email', { to: 'gone@example.com' });
    const bad = await park('shop__send_email', { to: 'bad@example.com' });
    const limited = await park('shop__send_email', { to: 'limited@example.com' });
    const patient = await park('shop__send_email', { to: 'patient@example.com' });
    const slow = await park('shop__send_email', { to: 'slow@example.com' });
    await eventually(
      "events.filter((event) => event.type === 'notify.failed').length === 2",
      () => events.filter((event) => event.type === 'notify.failed').length === 2,
    );
    await eventually(
      'the limited, patient and slow items to be announced',
      () => announced(hook.taken, limited) && announced(hook.taken, patient) && announced(hook.taken, slow),
    );
    // One more item, parked after both refusals: by the time it is announced, a retry 1-2 ms after a refusal would have come.
    const later = await park('shop__send_email', { to: 'later@example.com' });
    await eventually('announced(hook.taken, later)', () => announced(hook.taken, later));
    await wardrik.close();
    assert.deepEqual(Object.fromEntries(requests), {
      'gone@example.com': 1,
      'bad@example.com': 1,
      'limited@example.com': 2,
      'patient@example.com': 2,
      'slow@example.com': 2,
      'later@example.com': 1,
    });
    const failed = events.flatMap((event) => (event.type === 'notify.failed' ? [event] : []));
    assert.deepEqual(
      failed
        .map(({ inboxId, notification, status, tool, agent }) => ({ inboxId, notification, status, tool, agent }))
        .sort((a, b) => a.status - b.status),
      [
        { inboxId: bad, notification: 'inbox.waiting', status: 400, tool: 'shop/send_email', agent: 'support' },
        { inboxId: gone, notification: 'inbox.waiting', status: 410, tool: 'shop/send_email', agent: 'support' },
      ],
    );
    assert.match(
      failed.find((event) => event.status === 410)!.reason,
      /^inboxWeb notifications \(http:\/\/127\.0\.0\.1:\d+\/…\): the receiver refused the message about inbox item "[^"]+" \(shop\/send_email\) with HTTP 410, which a retry would not change, so it is not sent again\. The item still waits on the page: https:\/\/ops\.example\.com\/inbox\/\?item=/,
    );
    // The refusals are not warnings of a retry; the 429 and the 408 are.
    const warnings = events.flatMap((event) => (event.type === 'warning' ? [event.message] : []));
    assert.equal(warnings.length, 3);
    assert.ok(
      warnings.every((warning) => /HTTP 4(29|08)\. Trying again/.test(warning)),
      warnings.join('\n'),
    );
    // Both 429s asked for longer than the 1-2 ms backoff: the retry waited a second (Retry-After: 1), or an hour cut to maxDelayMs.
    const waits = (id: string) => warnings.find((warning) => warning.includes(id))!;
    assert.match(waits(limited), /HTTP 429\. Trying again in 1 s while it waits\.$/);
    assert.match(waits(patient), /HTTP 429\. Trying again in 1 s while it waits\.$/);
  });

  it('sends a refused message once more after a restart, so a receiver fixed meanwhile takes it', async () => {
    let refusing = true;
    const requests: string[] = [];
    const hook = await receiver(({ message }, response) => {
      requests.push(message.item.id);
      if (!refusing) return true;
      response.writeHead(413).end('too large');
      return false;
    });
    closing.push(hook.close);
    const store = stores.url();
    const first = await node(hook.url, { baseDelayMs: 1, maxDelayMs: 2 }, store);
    closing.push(() => first.wardrik.close());
    const id = await first.park('shop__send_email', { to: 'dana@example.com' });
    await eventually("first.events.some((event) => event.type === 'notify.failed')", () =>
      first.events.some((event) => event.type === 'notify.failed'),
    );
    await first.wardrik.close();
    // The receiver is fixed; the notifier restarts on the same store.
    refusing = false;
    const second = await node(hook.url, { baseDelayMs: 1, maxDelayMs: 2 }, store);
    closing.push(() => second.wardrik.close());
    await eventually('announced(hook.taken, id)', () => announced(hook.taken, id));
    assert.deepEqual(requests, [id, id]);
  });
});
