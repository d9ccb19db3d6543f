import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigurationError } from '../../src/index.js';
import { startRefundDesk } from '../../examples/web/slack-approvals.js';
import { slackSettings, type SlackOptions } from '../../src/web/slack-options.js';
import { eventually } from '../eventually.js';
import { BOT_TOKEN, CHANNEL, fakeSlack, pressBody, sendSigned, SIGNING_SECRET } from './slack-desk.js';

const GOOD: SlackOptions = {
  signingSecret: 'slack-signing-secret-0123456789ab',
  botToken: 'xoxb-1111-2222-abcdef',
  channel: 'C0APPROVALS',
  people: { U0CARLA: { id: 'carla', groups: ['finance-leads'] } },
};

describe('inboxWeb({ slack }) options', () => {
  it('takes the secrets from WARDRIK_SLACK_SIGNING_SECRET and WARDRIK_SLACK_BOT_TOKEN when not given', () => {
    const { signingSecret, botToken, ...rest } = GOOD;
    const settings = slackSettings(rest, {
      WARDRIK_SLACK_SIGNING_SECRET: signingSecret,
      WARDRIK_SLACK_BOT_TOKEN: botToken,
    });
    assert.deepEqual([settings.signingSecret, settings.botToken], [signingSecret, botToken]);
    assert.equal(settings.apiUrl, 'https://slack.com/api/');
    assert.deepEqual(settings.people.get('U0CARLA'), { id: 'carla', groups: ['finance-leads'] });
  });

  it('refuses each mistake at start-up, naming the option and the fix', () => {
    for (const [change, why] of [
      [
        { signingSecret: undefined },
        /slack\.signingSecret \(or WARDRIK_SLACK_SIGNING_SECRET\) must be .* signing secret/,
      ],
      [{ botToken: 'xoxp-user-token-123' }, /slack\.botToken .* "xoxb-…"/],
      [{ channel: '#approvals' }, /slack\.channel "#approvals" is not a channel id; give the id, such as "C0123ABCD"/],
      [{ people: {} }, /slack\.people maps Slack user ids to people, 1 to 10000/],
      [{ people: { carla: { id: 'carla' } } }, /slack\.people has "carla", which is not a Slack user id/],
      [
        { people: { U0CARLA: { id: 'carla', roles: ['admin'] } } },
        /slack\.people\.U0CARLA has "roles", which this version/,
      ],
      [
        { people: { U0CARLA: { id: 'wardrik-bot' } } },
        /slack\.people\.U0CARLA\.id "wardrik-bot" looks like a name Wardrik records/,
      ],
      [{ people: { U0CARLA: { id: 'carla', groups: 'finance' } } }, /slack\.people\.U0CARLA\.groups must be a list/],
      [{ apiUrl: 'ftp://slack.example' }, /slack\.apiUrl "ftp:\/\/slack\.example" is not an http\(s\) URL/],
      [{ signingsecret: 'x' }, /slack has "signingsecret", which this version of Wardrik does not know/],
    ] as const) {
      assert.throws(
        () => slackSettings({ ...GOOD, ...change } as unknown as SlackOptions, {}),
        (error: unknown) => error instanceof ConfigurationError && why.test(error.message),
        JSON.stringify(change),
      );
    }
  });
});

describe('The Slack example', () => {
  it('posts a refund to the channel, and a finance lead approves it from Slack', async () => {
    const slack = await fakeSlack();
    const desk = await startRefundDesk({
      store: 'memory:',
      port: 0,
      slack: { signingSecret: SIGNING_SECRET, botToken: BOT_TOKEN, channel: CHANNEL, apiUrl: slack.apiUrl },
    });
    try {
      const parked = await desk.wardrik.runner.run({
        agent: 'support',
        run: 'r1',
        call: { id: 'c1', name: 'shop__refund', arguments: { orderId: 'ord_7' } },
        onBehalfOf: 'bob@example.com',
      });
      assert.equal(parked.status, 'parked');
      const posted = await eventually('posted', () => slack.of('chat.postMessage')[0]);
      const message = { ...posted.body, ts: posted.answer.ts };
      const interactions = new URL('slack/interactions', desk.url).toString();
      assert.equal((await sendSigned(interactions, pressBody('U0123ANA', message, 'approve'))).status, 200);
      const update = await eventually('updated', () => slack.of('chat.update')[0]);
      assert.match(JSON.stringify(update.body.blocks), /Approved by ana@example\.com at /);
      assert.equal(
        (await desk.wardrik.inbox.get(parked.status === 'parked' ? parked.inboxId! : ''))!.status,
        'approved',
      );
    } finally {
      await desk.close();
      await slack.close();
    }
  });
});
