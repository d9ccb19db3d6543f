import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { Wardrik } from '../../src/index.js';
import { postgresSchemas } from '../cli/helpers.js';
import { eventually } from '../eventually.js';
import { sqliteStores } from './helpers.js';
import { pressBody, sendSigned, slackDesk, slackOptions, USERS } from './slack-desk.js';

const stores = sqliteStores();
const schemas = postgresSchemas();
after(async () => {
  stores.removeAll();
  await schemas.dropAll();
});

describe('Slack approvals on two nodes sharing a store', () => {
  for (const [name, url] of [
    ['SQLite', () => stores.url()],
    ['PostgreSQL', () => schemas.url()],
  ] as const) {
    it(`posts each item once however many inboxes post, and refuses a press replayed to the other node (${name})`, async () => {
      const desk = await slackDesk(url());
      const other = await Wardrik.create({ store: desk.store, recoverMs: Infinity });
      try {
        const web = other.inboxWeb({
          token: 'inbox-token-0123456789abcdef',
          pollMs: 50,
          slack: slackOptions(desk.slack.apiUrl),
        });
        const otherInteractions = new URL('slack/interactions', (await web.listen()).url).toString();
        const ids: string[] = [];
        for (let cents = 101; cents <= 106; cents++) ids.push(await desk.park(cents));
        for (const id of ids) await desk.posted(id);
        // Two more rounds, so that both inboxes scanned the first six again after they were posted.
        for (const cents of [107, 108]) await desk.posted(await desk.park(cents));
        const posts = desk.slack.of('chat.postMessage');
        assert.equal(posts.length, 8, JSON.stringify(posts.map((post) => post.body.text)));
        // A press to one node, replayed to the other: the store remembers its signature.
        const message = await desk.posted(ids[0]!);
        const body = pressBody(USERS.carla, message, 'approve');
        const timestamp = Math.floor(Date.now() / 1_000);
        assert.equal((await sendSigned(otherInteractions, body, { timestamp })).status, 200);
        assert.equal((await sendSigned(desk.interactions, body, { timestamp })).status, 401);
        // The other inbox offers no tool: the approval is recorded, and the node that offers it runs the call.
        await eventually('approved', async () => (await desk.node.inbox.get(ids[0]!))?.status === 'approved');
        await desk.node.runner.recover();
        assert.deepEqual(desk.paid, [101]);
      } finally {
        await other.close();
        await desk.close();
      }
    });
  }
});
