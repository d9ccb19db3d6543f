import 'reflect-metadata';
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, afterEach, describe, it } from 'node:test';
import { verifyWebhook, Wardrik, type InboxWaitingMessage, type WardrikEvent } from '../../src/index.js';
import { seed, type Seeded } from '../cli/helpers.js';
import { sqliteStores, TOKEN } from './helpers.js';
import { eventually } from '../eventually.js';

const SECRET = 'webhook-secret-0123456789';
const stores = sqliteStores();
after(() => stores.removeAll());

interface Received {
  readonly headers: IncomingHttpHeaders;
  readonly raw: string;
  readonly message: InboxWaitingMessage;
}

/**
 * A webhook receiver on 127.0.0.1 that checks each message's signature as a real one would, and
 * answers as `reply` says (200 unless told otherwise). Only messages it took (2xx) are in `taken`.
 */
async function receiver(reply: (n: number, response: ServerResponse) => boolean = () => true) {
  const taken: Received[] = [];
  let requests = 0;
  const server: Server = createServer((request, response) => {
    let raw = '';
    request.setEncoding('utf8').on('data', (chunk: string) => (raw += chunk));
    request.on('end', () => {
      // The guide's own check: a message signed with another secret, or altered, would be refused here.
      if (
        !verifyWebhook(SECRET, request.headers, raw).ok ||
        verifyWebhook('another-secret-0123456789', request.headers, raw).ok
      ) {
        response.writeHead(401).end('bad signature');
        return;
      }
      if (!reply(++requests, response)) return;
      taken.push({ headers: request.headers, raw, message: JSON.parse(raw) as InboxWaitingMessage });
      response.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    taken,
    get requests() {
      return requests;
    },
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/T000-secret-path`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** An inbox server on `url`'s store that notifies `hook`, with every event recorded. */
async function notifier(url: string, hook: string, retry = { baseDelayMs: 5, maxDelayMs: 20 }) {
  const wardrik = await Wardrik.create({ store: url, recoverMs: Infinity });
  const events: WardrikEvent[] = [];
  wardrik.events$.subscribe((event) => events.push(event));
  wardrik.inboxWeb({
    token: TOKEN,
    publicUrl: 'https://ops.example.com/inbox',
    pollMs: 20,
    notify: { webhook: { url: hook, secret: SECRET, retry } },
  });
  return { wardrik, events };
}

describe('Inbox notifications to a webhook', () => {
  const closing: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const close of closing.splice(0).reverse()) await close();
  });
  const start = async (url: string) => {
    const seeded: Seeded = await seed(url);
    closing.push(() => seeded.node.close());
    return seeded;
  };
  /** The seeded store, a receiver, and a notifier that has announced the four seeded items to it. */
  const announcedSeed = async () => {
    const url = stores.url();
    const seeded = await start(url);
    const hook = await receiver();
    closing.push(hook.close);
    const { wardrik } = await notifier(url, hook.url);
    closing.push(() => wardrik.close());
    await eventually('hook.taken.length === 4', () => hook.taken.length === 4);
    return { seeded, hook };
  };

  it('posts a signed message for each item that starts waiting: what, who asked, the labels, a link, and a text Slack shows', async () => {
    const { seeded, hook } = await announcedSeed();
    const byId = new Map(hook.taken.map((received) => [received.message.item.id, received]));
    const turn = byId.get(seeded.turn.approval)!;
    assert.equal(turn.headers['content-type'], 'application/json');
    assert.equal(turn.headers['webhook-id'], seeded.turn.approval);
    assert.equal(turn.message.type, 'inbox.waiting');
    assert.equal(turn.message.url, `https://ops.example.com/inbox/?item=${seeded.turn.approval}`);
    assert.deepEqual(turn.message.item.arguments, { id: 'ord_1' });
    assert.deepEqual(turn.message.item.labels, ['outside']);
    assert.equal(turn.message.item.agent, 'support');
    assert.equal(
      turn.message.text,
      `Approval needed: shop/refund {"id":"ord_1"} · asked by agent support in run ${seeded.turn.run} · labels: outside (asked for after the run read text from outside) · ` +
        `Needs approval (default: a tool that is not read-only asks a person). · Open: https://ops.example.com/inbox/?item=${seeded.turn.approval}`,
    );
    assert.match(
      byId.get(seeded.batch.park)!.message.text,
      /^A tool asks a person: shop\/ask_amount \{\} · asked by agent batch/,
    );
    assert.match(byId.get(seeded.batch.inDoubt)!.message.text, /^A call in doubt after a crash: shop\/send_email/);
    // One more parks on the node: it is announced too, once; the others are not announced again.
    const answer = await seeded.node.runner.run({
      agent: 'mailer',
      run: 'r2',
      call: { id: 'm1', name: 'shop__send_email', arguments: { to: '<!channel> & friends' } },
    });
    const id = answer.status === 'parked' ? answer.inboxId : undefined;
    await eventually('hook.taken.length === 5', () => hook.taken.length === 5);
    const last = hook.taken[4]!.message;
    assert.equal(last.item.id, id);
    // A model's arguments cannot ping a Slack channel: <, > and & are escaped as Slack asks.
    assert.match(last.text, /\{"to":"&lt;!channel&gt; &amp; friends"\}/);
    assert.equal(new Set(hook.taken.map((received) => received.message.item.id)).size, 5);
  });

  it("keeps a model's arguments from making a link, a second line or reversed text in the message Slack or Teams shows", async () => {
    const { seeded, hook } = await announcedSeed();
    // Text the model read from outside: a Markdown link (Teams shows one), a line break and a right-to-left override.
    const to =
      'x@example.com [Approve it here](https://evil.example/phish)\u2028Open: https://evil.example/\r\n\u202egnp.exe';
    const answer = await seeded.node.runner.run({
      agent: 'mailer',
      run: 'r3',
      call: { id: 'm1', name: 'shop__send_email', arguments: { to } },
    });
    assert.equal(answer.status, 'parked');
    await eventually('hook.taken.length === 5', () => hook.taken.length === 5);
    const { text, item } = hook.taken[4]!.message;
    assert.doesNotMatch(text, /\]\(/, 'no Markdown link');
    assert.doesNotMatch(
      text,
      /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u,
      'one line, in reading order',
    );
    assert.match(text, /\[Approve it here\] \(https:\/\/evil\.example\/phish\)/);
    assert.equal(text.match(/Open: /g)?.length, 2, 'the second "Open:" is visibly inside the arguments');
    assert.match(text, /· Open: https:\/\/ops\.example\.com\/inbox\/\?item=[^ ]+$/);
    // The item itself, for a receiver that reads it, is exact.
    assert.deepEqual(item.arguments, { to });
  });

  it('retries a failed delivery with backoff, reporting each failure as a warning that does not show the secret URL', async () => {
    const url = stores.url();
    await start(url);
    // The receiver is down for its first three requests.
    const hook = await receiver((n, response) => {
      if (n > 3) return true;
      response.writeHead(503).end('down');
      return false;
    });
    closing.push(hook.close);
    const { wardrik, events } = await notifier(url, hook.url);
    closing.push(() => wardrik.close());
    await eventually('hook.taken.length === 4', () => hook.taken.length === 4);
    const warnings = events.flatMap((event) => (event.type === 'warning' ? [event.message] : []));
    assert.equal(warnings.length, 3);
    // Which items the three failures hit depends on timing (a 5 ms retry may overtake another item's first try); each item's tries count up from 1.
    const attempts = new Map<string, number[]>();
    for (const warning of warnings) {
      const found =
        /^inboxWeb notifications \(http:\/\/127\.0\.0\.1:\d+\/…\): could not announce inbox item "(.+)" \(shop\/\w+\), attempt (\d+): the receiver answered HTTP 503\. Trying again in [\d.]+ s while it waits\.$/.exec(
          warning,
        );
      assert.ok(found, warning);
      attempts.set(found[1]!, [...(attempts.get(found[1]!) ?? []), Number(found[2])]);
      assert.doesNotMatch(warning, /secret-path/);
    }
    for (const tries of attempts.values())
      assert.deepEqual(
        tries,
        tries.map((_, i) => i + 1),
      );
    assert.equal(new Set(hook.taken.map((received) => received.message.item.id)).size, 4);
  });

  it('never holds up a call: a call parks while the receiver hangs on a delivery', async () => {
    const url = stores.url();
    const seeded = await start(url);
    const hanging: ServerResponse[] = [];
    const hook = await receiver((_n, response) => {
      hanging.push(response);
      return false;
    });
    closing.push(hook.close);
    const { wardrik } = await notifier(url, hook.url);
    closing.push(() => wardrik.close());
    await eventually('hanging.length >= 1', () => hanging.length >= 1);
    const answer = await seeded.node.runner.run({
      agent: 'mailer',
      run: 'r3',
      call: { id: 'm1', name: 'shop__send_email', arguments: { to: 'x@example.com' } },
    });
    assert.equal(answer.status, 'parked');
  });

  it('announces items that started waiting while no notifier ran, and does not announce them again after a restart', async () => {
    const url = stores.url();
    const seeded = await start(url);
    const hook = await receiver();
    closing.push(hook.close);
    const first = await notifier(url, hook.url);
    await eventually('hook.taken.length === 4', () => hook.taken.length === 4);
    await first.wardrik.close();
    // Parked while the notifier is down.
    const answer = await seeded.node.runner.run({
      agent: 'mailer',
      run: 'r4',
      call: { id: 'm1', name: 'shop__send_email', arguments: { to: 'y@example.com' } },
    });
    const id = answer.status === 'parked' ? answer.inboxId : undefined;
    const second = await notifier(url, hook.url);
    closing.push(() => second.wardrik.close());
    // The restarted notifier reads the pending items oldest first: by the time it announces the new
    // one it has passed the four it announced before, found their deliveries in the store, and skipped them.
    await eventually('hook.taken.some((received) => received.message.item.id === id)', () =>
      hook.taken.some((received) => received.message.item.id === id),
    );
    assert.equal(hook.taken.length, 5);
  });
});
