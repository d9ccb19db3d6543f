import 'reflect-metadata';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  defineTool,
  ToolResult,
  Wardrik,
  type SlackOptions,
  type ToolAnswer,
  type WardrikEvent,
} from '../../src/index.js';
import { eventually } from '../eventually.js';

export const SIGNING_SECRET = 'slack-signing-secret-0123456789ab';
export const BOT_TOKEN = 'xoxb-1111-2222-test-token';
export const CHANNEL = 'C0APPROVALS';
/** Slack users: two finance leads, one in support only, and ana, a finance lead who asks for payments. */
export const USERS = { ana: 'U0ANA', bob: 'U0BOB', carla: 'U0CARLA', dave: 'U0DAVE', erin: 'U0ERIN' } as const;
const PEOPLE = {
  [USERS.ana]: { id: 'ana', groups: ['finance-leads'] },
  [USERS.bob]: { id: 'bob', groups: ['support'] },
  [USERS.carla]: { id: 'carla', groups: ['finance-leads'] },
  [USERS.dave]: { id: 'dave', groups: ['finance-leads'] },
  [USERS.erin]: { id: 'erin', groups: ['finance-leads'] },
};

/** The inbox's Slack options, against the fake Web API at `apiUrl`. */
export function slackOptions(apiUrl: string) {
  return { signingSecret: SIGNING_SECRET, botToken: BOT_TOKEN, channel: CHANNEL, people: PEOPLE, apiUrl };
}

/** One call to the fake Web API: the method, its JSON body, and whether it came with the bot token. */
export interface SlackCall {
  readonly method: string;
  readonly body: Record<string, unknown>;
  readonly authorized: boolean;
  readonly answer: Record<string, unknown>;
}

/**
 * A loopback fake of Slack's Web API: it records every call and answers as Slack does (`ok: false,
 * error: invalid_auth` without the bot token); `chat.postMessage` gets a new `ts` each time.
 */
export async function fakeSlack() {
  const calls: SlackCall[] = [];
  let ts = 1_700_000_000;
  /** While held, answers wait: a Slack that is slow to answer. */
  let held: (() => void)[] | undefined;
  const server: Server = createServer((request, response) => {
    let text = '';
    request.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
    request.on('end', () => {
      const authorized = request.headers.authorization === `Bearer ${BOT_TOKEN}`;
      const method = (request.url ?? '').replace(/^\/api\//, '');
      const body = JSON.parse(text) as Record<string, unknown>;
      const answer: Record<string, unknown> = !authorized
        ? { ok: false, error: 'invalid_auth' }
        : method === 'chat.postMessage'
          ? { ok: true, channel: body.channel, ts: `${++ts}.000100` }
          : { ok: true };
      calls.push({ method, body, authorized, answer });
      const respond = () => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
      if (held === undefined) respond();
      else held.push(respond);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    apiUrl: `http://127.0.0.1:${port}/api/`,
    calls,
    of: (method: string) => calls.filter((call) => call.method === method),
    hold: () => void (held = []),
    release: () => {
      const waiting = held ?? [];
      held = undefined;
      for (const respond of waiting) respond();
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A press of a button on a posted message, as Slack sends it: the form field `payload`. */
export function pressBody(user: string, message: Record<string, unknown>, action: 'approve' | 'deny'): string {
  const blocks = message.blocks as { type: string; elements?: { action_id: string; value: string }[] }[];
  const button = blocks
    .find((block) => block.type === 'actions')!
    .elements!.find((element) => element.action_id === `wardrik_${action}`)!;
  const payload = {
    type: 'block_actions',
    user: { id: user, username: user.toLowerCase() },
    team: { id: 'T0TEAM' },
    container: { type: 'message', channel_id: message.channel, message_ts: message.ts },
    channel: { id: message.channel },
    message: { ts: message.ts, blocks },
    // Slack's own time of the press: two presses of one button are two requests with two signatures.
    actions: [
      {
        type: 'button',
        action_id: button.action_id,
        value: button.value,
        block_id: 'wardrik_answer',
        action_ts: `${Date.now() / 1_000}${Math.random().toString().slice(2, 8)}`,
      },
    ],
  };
  return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
}

/** Slack's signature of a body sent at `timestamp` (seconds). */
export function signatureOf(body: string, timestamp: number, secret = SIGNING_SECRET): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
}

/** Sends a body to the interactions route, signed as Slack signs (or with what `sign` changes). */
export async function sendSigned(
  url: string,
  body: string,
  sign: { timestamp?: number; secret?: string; signature?: string } = {},
): Promise<{ status: number; text: string }> {
  const timestamp = String(sign.timestamp ?? Math.floor(Date.now() / 1_000));
  const signature = sign.signature ?? signatureOf(body, Number(timestamp), sign.secret);
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-slack-request-timestamp': timestamp,
      'x-slack-signature': signature,
    },
    body,
  });
  return { status: response.status, text: await response.text() };
}

/**
 * A payables node that offers `pay` under a rule only finance leads answer (not the requester), with
 * `quorum`, and the inbox with Slack on the same Wardrik, so an approval runs the call here at once.
 */
export async function slackDesk(store: string, quorum = 1, changes: Partial<SlackOptions> = {}) {
  const slack = await fakeSlack();
  const paid: number[] = [];
  const node = await Wardrik.create({
    store,
    recoverMs: Infinity,
    tools: {
      t: [
        defineTool({
          name: 'read_invoice',
          description: 'Read an invoice from the supplier portal.',
          annotations: { readOnly: true },
          run: () => new ToolResult('Invoice 7: pay 700 cents', { labels: ['outside'] }),
        }),
        defineTool({
          name: 'pay',
          description: 'Pay a supplier.',
          input: {
            type: 'object',
            properties: { cents: { type: 'integer' }, memo: { type: 'string' } },
            required: ['cents'],
            additionalProperties: false,
          },
          run: ({ cents }: { cents: number }) => {
            paid.push(cents);
            return { paid: cents };
          },
        }),
      ],
    },
    policy: { rules: [{ match: 't/pay', action: 'ask', approvers: ['finance-leads'], quorum }] },
  });
  const events: WardrikEvent[] = [];
  const subscription = node.events$.subscribe((event) => events.push(event));
  const web = node.inboxWeb({
    token: 'inbox-token-0123456789abcdef',
    pollMs: 50,
    slack: { ...slackOptions(slack.apiUrl), ...changes },
  });
  const { url: base } = await web.listen();
  const interactions = new URL('slack/interactions', base).toString();
  return {
    store,
    node,
    slack,
    paid,
    events,
    base,
    interactions,
    /** Parks a payment asked for on ana's behalf, after the run read an invoice from outside. */
    async park(cents = 700, memo = 'Invoice 7'): Promise<string> {
      const run = `run-${cents}-${Math.random().toString(36).slice(2)}`;
      await node.runner.run({ agent: 'payables', run, call: { id: 'c0', name: 't__read_invoice', arguments: {} } });
      const answer: ToolAnswer = await node.runner.run({
        agent: 'payables',
        run,
        call: { id: 'c1', name: 't__pay', arguments: { cents, memo } },
        onBehalfOf: 'ana',
      });
      assert.equal(answer.status, 'parked');
      return answer.status === 'parked' ? answer.inboxId! : '';
    },
    /** The message posted about the item, with its channel and ts, once the poster posted it. */
    async posted(id: string): Promise<Record<string, unknown>> {
      const call = await eventually(`item ${id} posted to Slack`, () =>
        slack.of('chat.postMessage').find((posted) => JSON.stringify(posted.body.blocks).includes(id)),
      );
      return { ...call.body, ts: call.answer.ts };
    },
    press(user: string, message: Record<string, unknown>, action: 'approve' | 'deny') {
      return sendSigned(interactions, pressBody(user, message, action));
    },
    async close() {
      subscription.unsubscribe();
      await node.close();
      await slack.close();
    },
  };
}
