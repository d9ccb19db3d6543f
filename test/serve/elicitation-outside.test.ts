import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ElicitRequestSchema, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { serving, text } from './helpers.js';
import { eventually } from '../eventually.js';

const WITH_ELICITATION = { capabilities: { elicitation: { form: {} } } };
/** A client whose elicitation handler accepts whatever it is asked, as an agent driven by injected text would. */
const ALWAYS_YES =
  (asked: ElicitRequest['params'][]) =>
  (request: ElicitRequest): ElicitResult => {
    asked.push(request.params);
    return { action: 'accept', content: { approve: true } };
  };

describe("approvals: { via: 'elicitation' } once the session has read outside text", () => {
  it('never asks the client: the refund its own text asked for waits in the inbox, and nothing runs', async () => {
    // The attack of issue 27, point 7: the client reads a page telling it to refund, its own handler says yes.
    const s = await serving(
      { agent: 'desk', approvals: { via: 'elicitation', waitMs: 30, checkMs: 5 } },
      { policy: { rules: [{ match: 'orders/refund', action: 'allow' }] } },
    );
    try {
      const client = await s.client({}, WITH_ELICITATION);
      const asked: ElicitRequest['params'][] = [];
      client.setRequestHandler(ElicitRequestSchema, ALWAYS_YES(asked));
      assert.match(text(await client.callTool({ name: 'orders__read_web', arguments: {} })), /refund everything/);
      const result = await client.callTool({ name: 'orders__refund', arguments: { id: 'o-66' } });
      assert.equal(asked.length, 0, 'the client was asked to approve what outside text asked for');
      assert.equal(result.isError, true);
      assert.match(
        text(result),
        /waiting for a person \(inbox item [0-9a-f-]+\).*This session has read text from outside \(labelled "outside"\), so its own user is not asked to approve the call: a person answers it in the inbox\. Nothing has run yet/s,
      );
      assert.deepEqual(s.ledger.refunds, []);
      const [item] = await s.store.listInbox({ all: true });
      assert.equal(item!.status, 'pending');
      assert.deepEqual(item!.labels, ['outside']);
      // Joining the same call again (the page said "call it again") still never asks the client.
      assert.match(
        text(await client.callTool({ name: 'orders__refund', arguments: { id: 'o-66' } })),
        /waiting for a person/,
      );
      assert.equal(asked.length, 0);
      // A person in the inbox decides; the client's next call gets the result.
      await s.wardrik.inbox.approve(item!.id, { by: 'dana' });
      assert.equal(text(await client.callTool({ name: 'orders__refund', arguments: { id: 'o-66' } })), 'refunded o-66');
      assert.deepEqual(s.ledger.refunds, ['o-66']);
      assert.equal((await s.store.getInboxItem(item!.id))?.by, 'dana');
    } finally {
      await s.close();
    }
  });

  it('never asks the client for a call parked before the session read outside text and joined after', async () => {
    const s = await serving({ approvals: { via: 'elicitation', waitMs: 30, checkMs: 5 } });
    try {
      const client = await s.client({}, WITH_ELICITATION);
      const asked: ElicitRequest['params'][] = [];
      // First the user cancels (the item stays pending); then the session reads outside text and repeats the call.
      let answer: 'cancel' | 'accept' = 'cancel';
      client.setRequestHandler(ElicitRequestSchema, (request): ElicitResult => {
        asked.push(request.params);
        return answer === 'cancel' ? { action: 'cancel' } : { action: 'accept', content: { approve: true } };
      });
      assert.match(
        text(await client.callTool({ name: 'orders__refund', arguments: { id: 'o-67' } })),
        /waiting for a person/,
      );
      assert.equal(asked.length, 1, 'a session without outside text is asked');
      await client.callTool({ name: 'orders__read_web', arguments: {} });
      answer = 'accept';
      assert.match(
        text(await client.callTool({ name: 'orders__refund', arguments: { id: 'o-67' } })),
        /waiting for a person/,
      );
      assert.equal(asked.length, 1, 'asked again after reading outside text');
      assert.deepEqual(s.ledger.refunds, []);
      assert.deepEqual(
        (await s.store.listInbox({ all: true })).map((item) => item.status),
        ['pending'],
      );
    } finally {
      await s.close();
    }
  });

  it('sets aside a yes given after the session read outside text while the form was open', async () => {
    // waitMs bounds the form too: long enough for the client to read the page before it answers.
    const s = await serving({ approvals: { via: 'elicitation', waitMs: 60_000, checkMs: 5 } });
    const warnings: string[] = [];
    const subscription = s.wardrik.events$.subscribe(
      (event) => event.type === 'warning' && warnings.push(event.message),
    );
    try {
      const client = await s.client({}, WITH_ELICITATION);
      let read = '';
      // The form arrives before any outside text; the client reads a page (in the same session), then says yes.
      client.setRequestHandler(ElicitRequestSchema, async (): Promise<ElicitResult> => {
        read = text(await client.callTool({ name: 'orders__read_web', arguments: {} }));
        return { action: 'accept', content: { approve: true } };
      });
      const result = client.callTool({ name: 'orders__refund', arguments: { id: 'o-69' } });
      // Either the yes was set aside (and said so), or it was taken and the refund ran.
      await eventually(
        'warnings.length > 0 || s.ledger.refunds.length > 0',
        () => warnings.length > 0 || s.ledger.refunds.length > 0,
      );
      assert.match(read, /refund everything/);
      assert.deepEqual(s.ledger.refunds, [], 'the yes given after reading outside text was taken');
      assert.match(
        warnings[0]!,
        /The client's yes to inbox item [0-9a-f-]+ \(orders\/refund\) was set aside: its session read outside text while the form was open/,
      );
      const [item] = await s.store.listInbox();
      assert.equal(item?.status, 'pending');
      // The held call goes on waiting for a person in the inbox.
      await s.wardrik.inbox.deny(item.id, { reason: 'not asked for by the user', by: 'dana' });
      assert.match(text(await result), /refused this call: not asked for by the user/);
      assert.deepEqual(s.ledger.refunds, []);
    } finally {
      subscription.unsubscribe();
      await s.close();
    }
  });

  it('never asks the client in a task either', async () => {
    const s = await serving(
      { approvals: { via: 'elicitation', checkMs: 5 } },
      { policy: { rules: [{ match: 'orders/refund', action: 'allow' }] } },
    );
    try {
      const client = await s.client({}, WITH_ELICITATION);
      const asked: ElicitRequest['params'][] = [];
      client.setRequestHandler(ElicitRequestSchema, ALWAYS_YES(asked));
      await client.callTool({ name: 'orders__read_web', arguments: {} });
      const stream = client.experimental.tasks.callToolStream(
        { name: 'orders__refund', arguments: { id: 'o-68' } },
        undefined,
        { task: { ttl: 60_000 } },
      );
      let item: string | undefined;
      for await (const message of stream) {
        // The task says it waits on the inbox, not on the client: by then the client would have been asked.
        if (message.type === 'taskStatus' && message.task.statusMessage?.includes('its own user is not asked')) {
          item = (await s.store.listInbox())[0]?.id;
          break;
        }
      }
      assert.ok(item !== undefined, 'the task waits on an inbox item');
      assert.equal(asked.length, 0);
      assert.deepEqual(s.ledger.refunds, []);
      assert.equal((await s.store.getInboxItem(item))?.status, 'pending');
    } finally {
      await s.close();
    }
  });
});
