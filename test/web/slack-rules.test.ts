import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { eventually } from '../eventually.js';
import { sqliteStores } from './helpers.js';
import { slackDesk, USERS } from './slack-desk.js';

const stores = sqliteStores();
after(() => stores.removeAll());

const textOf = (message: Record<string, unknown>) => JSON.stringify(message.blocks);

describe('Slack approvals hold the same rules as the page', () => {
  for (const [who, why] of [
    ['bob', /bob is not in "finance-leads" \(their groups: support\)/],
    ['ana', /ana asked for this call, and may not answer it themselves/],
  ] as const) {
    it(`refuses ${who === 'bob' ? 'a person outside the approvers' : 'the requester'}, telling them alone who may answer`, async () => {
      const desk = await slackDesk(stores.url());
      try {
        const id = await desk.park();
        const message = await desk.posted(id);
        for (const action of ['approve', 'deny'] as const) {
          assert.equal((await desk.press(USERS[who], message, action)).status, 200);
        }
        await eventually('both presses refused', () => desk.slack.of('chat.postEphemeral').length === 2);
        for (const told of desk.slack.of('chat.postEphemeral')) {
          assert.equal(told.body.user, USERS[who]);
          assert.match(String(told.body.text), why);
          assert.match(String(told.body.text), /Who may answer it: a person in "finance-leads", other than ana/);
        }
        assert.equal((await desk.node.inbox.get(id))!.status, 'pending');
        assert.deepEqual(desk.slack.of('chat.update'), []);
        assert.deepEqual(desk.paid, []);
      } finally {
        await desk.close();
      }
    });
  }

  it('with quorum 2, counts a first Slack approval on the message and runs the call after a second person', async () => {
    const desk = await slackDesk(stores.url(), 2);
    try {
      const id = await desk.park();
      const message = await desk.posted(id);
      assert.equal((await desk.press(USERS.carla, message, 'approve')).status, 200);
      const counted = await eventually('the first approval shown', () => desk.slack.of('chat.update')[0]);
      assert.match(textOf(counted.body), /Approvals so far: 1 of 2 \(carla\)/);
      assert.match(textOf(counted.body), /wardrik_approve/);
      assert.deepEqual(desk.paid, []);
      // The same person again is not a second person.
      assert.equal((await desk.press(USERS.carla, message, 'approve')).status, 200);
      const again = await eventually('carla told', () => desk.slack.of('chat.postEphemeral')[0]);
      assert.match(String(again.body.text), /carla/);
      assert.deepEqual(desk.paid, []);
      assert.equal((await desk.press(USERS.dave, message, 'approve')).status, 200);
      await eventually('the call ran', () => desk.paid.length === 1);
      const done = await eventually('the outcome shown', () =>
        desk.slack.of('chat.update').find((update) => textOf(update.body).includes('Approved by')),
      );
      assert.match(textOf(done.body), /Approved by carla and dave at /);
      assert.doesNotMatch(textOf(done.body), /wardrik_approve/);
      assert.deepEqual(desk.paid, [700]);
    } finally {
      await desk.close();
    }
  });

  it('runs the call once when five presses come at once, and tells the others it was answered', async () => {
    const desk = await slackDesk(stores.url());
    try {
      const id = await desk.park();
      const message = await desk.posted(id);
      const who = [USERS.carla, USERS.dave, USERS.erin, USERS.carla, USERS.dave];
      const statuses = await Promise.all(who.map((user) => desk.press(user, message, 'approve')));
      assert.deepEqual(
        statuses.map((answer) => answer.status),
        [200, 200, 200, 200, 200],
      );
      await eventually('four told it was answered', () => desk.slack.of('chat.postEphemeral').length === 4);
      for (const told of desk.slack.of('chat.postEphemeral'))
        assert.match(String(told.body.text), /was already approved by (carla|dave|erin) at .*nothing was done/);
      assert.deepEqual(desk.paid, [700]);
      const item = (await desk.node.inbox.get(id))!;
      assert.equal(item.status, 'approved');
      await eventually('every message update made', () => desk.slack.of('chat.update').length === 5);
      for (const update of desk.slack.of('chat.update'))
        assert.match(textOf(update.body), new RegExp(`Approved by ${item.by} at`));
    } finally {
      await desk.close();
    }
  });

  it('refuses a press for arguments that changed since the message was posted (a stale digest)', async () => {
    const desk = await slackDesk(stores.url(), 2);
    try {
      const id = await desk.park();
      const message = await desk.posted(id);
      const item = (await desk.node.inbox.get(id))!;
      // Carla approves changed arguments on the page: the message's digest is no longer what waits.
      await desk.node.inbox.approve(id, {
        by: 'carla',
        groups: ['finance-leads'],
        digest: item.digest,
        arguments: { cents: 500, memo: 'Invoice 7, less the credit note' },
      });
      assert.equal((await desk.press(USERS.dave, message, 'approve')).status, 200);
      const told = await eventually('dave told', () => desk.slack.of('chat.postEphemeral')[0]);
      assert.match(String(told.body.text), /the approval was for other arguments/);
      assert.equal((await desk.node.inbox.get(id))!.status, 'pending');
      assert.deepEqual(desk.paid, []);
    } finally {
      await desk.close();
    }
  });
});
