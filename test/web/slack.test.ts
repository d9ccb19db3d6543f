import 'reflect-metadata';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import type { InboxWeb } from '../../src/index.js';
import { eventually } from '../eventually.js';
import { sqliteStores } from './helpers.js';
import { CHANNEL, pressBody, sendSigned, signatureOf, slackDesk, slackOptions, USERS } from './slack-desk.js';

const stores = sqliteStores();
after(() => stores.removeAll());

type Block = { type: string; text?: { text: string }; fields?: { text: string }[]; elements?: Element[] };
type Element = { type: string; text?: unknown; value?: string; action_id?: string; elements?: Element[] };

const blocksOf = (message: Record<string, unknown>) => message.blocks as Block[];
const textOf = (message: Record<string, unknown>) => JSON.stringify(message.blocks);

describe('Slack approvals', () => {
  it('posts each waiting approval once: the tool, the exact arguments, the link, outside explained, who asked, the buttons', async () => {
    const desk = await slackDesk(stores.url());
    try {
      const id = await desk.park(700, 'Invoice 7 <!channel> & `code`');
      const message = await desk.posted(id);
      const item = (await desk.node.inbox.get(id))!;
      assert.ok(desk.slack.of('chat.postMessage').every((call) => call.authorized));
      assert.equal(message.channel, CHANNEL);
      const blocks = blocksOf(message);
      assert.deepEqual(blocks[0], {
        type: 'header',
        text: { type: 'plain_text', text: 'Approval needed: t/pay', emoji: false },
      });
      assert.deepEqual(
        blocks[1]!.fields!.map((field) => field.text),
        ['Tool: t/pay', 'Asked by: agent payables for ana', `Run: ${item.run}`],
      );
      const preformatted = blocks[2]!.elements![1]!;
      assert.equal(preformatted.type, 'rich_text_preformatted');
      assert.equal(
        preformatted.elements![0]!.text as string,
        JSON.stringify({ cents: 700, memo: 'Invoice 7 <!channel> & `code`' }, null, 2),
      );
      assert.match(textOf(message), new RegExp(`<${desk.base}\\?item=${id}\\|Open the item in the inbox>`));
      assert.match(textOf(message), /outside: asked for after the run read text from outside/);
      assert.match(textOf(message), /Who may answer: a person in \\"finance-leads\\", other than ana/);
      const buttons = blocks.find((block) => block.type === 'actions')!.elements!;
      assert.deepEqual(
        buttons.map((button) => [button.action_id, JSON.parse(button.value!)]),
        [
          ['wardrik_approve', { item: id, digest: item.digest }],
          ['wardrik_deny', { item: id, digest: item.digest }],
        ],
      );
      // A later item is posted after further scans, and the first is not posted again.
      const second = await desk.park(800);
      await desk.posted(second);
      assert.equal(desk.slack.of('chat.postMessage').filter((call) => textOf(call.body).includes(id)).length, 1);
    } finally {
      await desk.close();
    }
  });

  it('cuts long arguments at 2 000 characters, saying how long they are, beside the link to the page', async () => {
    const desk = await slackDesk(stores.url());
    try {
      const id = await desk.park(700, 'x'.repeat(5_000));
      const message = await desk.posted(id);
      const rich = blocksOf(message)[2]!;
      const whole = JSON.stringify({ cents: 700, memo: 'x'.repeat(5_000) }, null, 2);
      assert.equal(
        rich.elements![0]!.elements![0]!.text,
        `Arguments, the first 2000 of ${whole.length} characters (the page shows them whole):`,
      );
      assert.equal(rich.elements![1]!.elements![0]!.text, `${whole.slice(0, 2_000)}…`);
    } finally {
      await desk.close();
    }
  });

  it('approves from Slack: the call runs once, and the message shows who approved in place of the buttons', async () => {
    const desk = await slackDesk(stores.url());
    try {
      const id = await desk.park();
      const message = await desk.posted(id);
      assert.equal((await desk.press(USERS.carla, message, 'approve')).status, 200);
      const update = await eventually('the message updated', () => desk.slack.of('chat.update')[0]);
      assert.equal(update.authorized, true);
      assert.deepEqual([update.body.channel, update.body.ts], [CHANNEL, message.ts]);
      assert.match(textOf(update.body), /Approved by carla at /);
      assert.ok(!blocksOf(update.body).some((block) => block.type === 'actions'));
      assert.deepEqual(desk.paid, [700]);
      const item = (await desk.node.inbox.get(id))!;
      assert.deepEqual([item.status, item.by], ['approved', 'carla']);
    } finally {
      await desk.close();
    }
  });

  it('denies from Slack: nothing runs, and the message shows who denied', async () => {
    const desk = await slackDesk(stores.url());
    try {
      const id = await desk.park();
      const message = await desk.posted(id);
      assert.equal((await desk.press(USERS.dave, message, 'deny')).status, 200);
      const update = await eventually('the message updated', () => desk.slack.of('chat.update')[0]);
      assert.match(textOf(update.body), /Denied by dave at /);
      const item = (await desk.node.inbox.get(id))!;
      assert.deepEqual([item.status, item.by], ['denied', 'dave']);
      assert.deepEqual(desk.paid, []);
    } finally {
      await desk.close();
    }
  });

  it('refuses with 401 a wrong signature, another secret, a stale timestamp and a replay, answering nothing', async () => {
    const desk = await slackDesk(stores.url());
    try {
      const id = await desk.park();
      const message = await desk.posted(id);
      const body = pressBody(USERS.carla, message, 'approve');
      const now = Math.floor(Date.now() / 1_000);
      for (const [sign, why] of [
        [{ secret: 'another-secret-0123456789abcdef' }, /X-Slack-Signature does not match/],
        [{ signature: `v0=${'0'.repeat(64)}` }, /X-Slack-Signature does not match/],
        [{ timestamp: now - 301 }, /\d+ s old, outside the tolerance of 300 s/],
        [{ timestamp: now + 360 }, /\d+ s ahead/],
      ] as const) {
        const refused = await sendSigned(desk.interactions, body, sign);
        assert.equal(refused.status, 401, JSON.stringify(sign));
        assert.match(refused.text, why);
      }
      // Signed for carla, sent as dave's: the signature is over the raw body.
      const asDave = body.replace(USERS.carla, USERS.dave);
      const tampered = await sendSigned(desk.interactions, asDave, {
        signature: signatureOf(body, now),
        timestamp: now,
      });
      assert.equal(tampered.status, 401);
      assert.equal((await desk.node.inbox.get(id))!.status, 'pending');
      assert.deepEqual(
        desk.slack.calls.filter((call) => call.method !== 'chat.postMessage'),
        [],
      );
      // Signed right and sent twice: the first is answered, the second refused.
      assert.equal((await sendSigned(desk.interactions, body, { timestamp: now })).status, 200);
      const replay = await sendSigned(desk.interactions, body, { timestamp: now });
      assert.equal(replay.status, 401);
      assert.match(replay.text, /taken before \(the same signature\): a replay/);
      await eventually('the message updated', () => desk.slack.of('chat.update').length === 1);
      assert.deepEqual(desk.slack.of('chat.postEphemeral'), []);
      assert.deepEqual(desk.paid, [700]);
    } finally {
      await desk.close();
    }
  });

  it('refuses a press from a Slack user it does not know, telling them alone; nothing is answered', async () => {
    const desk = await slackDesk(stores.url());
    try {
      const id = await desk.park();
      const message = await desk.posted(id);
      assert.equal((await desk.press('U0MALLORY', message, 'approve')).status, 200);
      const told = await eventually('the user told', () => desk.slack.of('chat.postEphemeral')[0]);
      assert.deepEqual([told.body.channel, told.body.user], [CHANNEL, 'U0MALLORY']);
      assert.match(String(told.body.text), /Slack user U0MALLORY is not one of the people this inbox knows/);
      assert.equal((await desk.node.inbox.get(id))!.status, 'pending');
      assert.deepEqual(desk.slack.of('chat.update'), []);
      assert.deepEqual(desk.paid, []);
    } finally {
      await desk.close();
    }
  });

  it('answers at most 100 presses at once while Slack is slow, and tells Slack to try later past that (503)', async () => {
    const desk = await slackDesk(stores.url());
    try {
      const message = await desk.posted(await desk.park());
      desk.slack.hold();
      const first = await Promise.all(Array.from({ length: 100 }, () => desk.press('U0MALLORY', message, 'approve')));
      assert.deepEqual(new Set(first.map((answer) => answer.status)), new Set([200]));
      const over = await desk.press('U0MALLORY', message, 'approve');
      assert.equal(over.status, 503);
      assert.match(over.text, /Too many Slack presses are being answered at once/);
      desk.slack.release();
      await eventually('all told', () => desk.slack.of('chat.postEphemeral').length === 100);
      assert.equal((await desk.press('U0MALLORY', message, 'approve')).status, 200);
    } finally {
      desk.slack.release();
      await desk.close();
    }
  });

  it('takes the raw text a body parser in front left on req.body, and refuses a parsed object it cannot check', async () => {
    const desk = await slackDesk(stores.url());
    let handler: InboxWeb['handler'] = () => undefined;
    // An app whose parser reads every body first: as text on one path, as an object on the other.
    const app = createServer((request, response) => {
      let text = '';
      request.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      request.on('end', () => {
        const parsed = request.url === '/object';
        Object.assign(request, {
          body: parsed ? Object.fromEntries(new URLSearchParams(text)) : text,
          url: '/slack/interactions',
        });
        handler(request, response);
      });
    });
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
    // Mounted, not listening: Slack starts once the inbox knows its address, publicUrl.
    handler = desk.node.inboxWeb({
      token: 'inbox-token-0123456789abcdef',
      publicUrl: `${origin}/`,
      slack: slackOptions(desk.slack.apiUrl),
    }).handler;
    try {
      const message = await desk.posted(await desk.park());
      const body = pressBody(USERS.carla, message, 'approve');
      const refused = await sendSigned(`${origin}/object`, body);
      assert.equal(refused.status, 400);
      assert.match(refused.text, /kept no raw text, so its signature cannot be checked/);
      assert.equal((await sendSigned(`${origin}/text`, body)).status, 200);
      await eventually('the call ran', () => desk.paid.length === 1);
    } finally {
      await new Promise<void>((resolve) => app.close(() => resolve()));
      await desk.close();
    }
  });

  it('tells of a post Slack refused in a warning naming the fix, and tries one post a scan until Slack takes it', async () => {
    const desk = await slackDesk(stores.url(), 1, { botToken: 'xoxb-not-this-apps-token' });
    try {
      const ids = [await desk.park(101), await desk.park(102), await desk.park(103)];
      await eventually('four tries', () => desk.slack.of('chat.postMessage').length >= 4);
      // Each scan stops at its first refusal: the first item in the list is tried again, the others wait behind it.
      const tried = desk.slack.of('chat.postMessage').map((call) => ids.find((id) => textOf(call.body).includes(id)));
      assert.ok(desk.slack.of('chat.postMessage').every((call) => !call.authorized));
      assert.equal(new Set(tried.slice(0, 4)).size, 1, JSON.stringify(tried));
      const warning = desk.events.find((event) => event.type === 'warning' && event.message.includes(tried[0]!));
      assert.match(
        (warning as { message: string }).message,
        /could not post inbox item .*: Slack's chat\.postMessage refused: invalid_auth \(check slack\.botToken/,
      );
    } finally {
      await desk.close();
    }
  });

  it('refuses a body over 128 KB unread, and a press with no signature', async () => {
    const desk = await slackDesk(stores.url());
    try {
      const big = await sendSigned(desk.interactions, `payload=${'x'.repeat(130 * 1024)}`);
      assert.equal(big.status, 413);
      const unsigned = await fetch(desk.interactions, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'payload={}',
      });
      assert.equal(unsigned.status, 401);
    } finally {
      await desk.close();
    }
  });
});
