import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ElicitRequestSchema, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { serving, text } from './helpers.js';

const WITH_ELICITATION = { capabilities: { elicitation: { form: {} } } };

describe("WardrikMcpServer with approvals: { via: 'elicitation' }", () => {
  it("asks the client's own user, showing the arguments and labels, and records them as by", async () => {
    // A session that has read outside text is never asked (elicitation-outside.test.ts): this one has not.
    const s = await serving({ agent: 'desk', approvals: { via: 'elicitation', waitMs: 60_000, checkMs: 10 } });
    try {
      const client = await s.client({}, WITH_ELICITATION);
      const asked: ElicitRequest['params'][] = [];
      client.setRequestHandler(ElicitRequestSchema, (request): ElicitResult => {
        asked.push(request.params);
        return { action: 'accept', content: { approve: true } };
      });
      await client.callTool({ name: 'orders__find_order', arguments: { id: 'o-77' } });
      // Not read-only: it asks, and the user is asked.
      const result = await client.callTool({ name: 'orders__refund', arguments: { id: 'o-77' } });
      assert.equal(text(result), 'refunded o-77');
      assert.equal(asked.length, 1);
      assert.match(asked[0]!.message, /orders\/refund/);
      assert.match(asked[0]!.message, /"id": "o-77"/);
      // The order it read is the app's own data.
      assert.match(asked[0]!.message, /Labels on this conversation: confidential\n/);
      const [item] = await s.store.listInbox({ all: true });
      assert.equal(item!.status, 'approved');
      assert.equal(item!.by, 'desk');
    } finally {
      await s.close();
    }
  });

  it('refuses the call when the user declines, with their reason', async () => {
    const s = await serving({ approvals: { via: 'elicitation', checkMs: 10 } });
    try {
      const client = await s.client({}, WITH_ELICITATION);
      client.setRequestHandler(ElicitRequestSchema, (): ElicitResult => ({
        action: 'accept',
        content: { approve: false, reason: 'wrong order' },
      }));
      const result = await client.callTool({ name: 'orders__refund', arguments: { id: 'o-78' } });
      assert.equal(result.isError, true);
      assert.match(text(result), /refused this call: wrong order/);
      assert.deepEqual(s.ledger.refunds, []);
    } finally {
      await s.close();
    }
  });

  it('leaves the item to the inbox for a client that cannot elicit, or whose user cancels', async () => {
    const s = await serving({ approvals: { via: 'elicitation', waitMs: 20, checkMs: 10 } });
    try {
      const plain = await s.client();
      const waiting = await plain.callTool({ name: 'orders__refund', arguments: { id: 'o-79' } });
      assert.match(text(waiting), /waiting for a person/);
      const cancelling = await s.client({}, WITH_ELICITATION);
      cancelling.setRequestHandler(ElicitRequestSchema, (): ElicitResult => ({ action: 'cancel' }));
      const still = await cancelling.callTool({ name: 'orders__refund', arguments: { id: 'o-80' } });
      assert.match(text(still), /waiting for a person/);
      assert.deepEqual(
        (await s.wardrik.inbox.list()).map((item) => item.status),
        ['pending', 'pending'],
      );
    } finally {
      await s.close();
    }
  });
});
