import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { serving, text } from './helpers.js';
import { eventually } from '../eventually.js';
import { manualTimeContainer } from '../manual-time-container.js';
import { manualTime } from '../../src/testing/index.js';

/** A client of `s.server` over an in-memory transport: two calls sent in one tick reach the server before either is answered. */
async function inMemoryClient(s: Awaited<ReturnType<typeof serving>>): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await s.server.connect(serverSide);
  const client = new Client({ name: 'in-memory', version: '1.0.0' });
  await client.connect(clientSide);
  return client;
}

describe('WardrikMcpServer, when a call must wait for a person', () => {
  it('holds the request open and answers with the one result once a person approves', async () => {
    const s = await serving({ approvals: { waitMs: 60_000, checkMs: 10 } });
    try {
      const client = await s.client();
      const calling = client.callTool({ name: 'orders__refund', arguments: { id: 'o-1' } });
      await eventually(
        '(await s.wardrik.inbox.list()).length === 1',
        async () => (await s.wardrik.inbox.list()).length === 1,
      );
      const [item] = await s.wardrik.inbox.list();
      assert.equal(item!.run, client.session);
      assert.equal(item!.agent, 'mcp');
      await s.wardrik.inbox.approve(item!.id, { by: 'ana' });
      const result = await calling;
      assert.equal(text(result), 'refunded o-1');
      assert.deepEqual(result._meta, {
        'wardrik/labels': ['money', 'confidential'],
        'io.modelcontextprotocol/trust-annotations': { sensitive: true },
      });
      assert.deepEqual(s.ledger.refunds, ['o-1']);
    } finally {
      await s.close();
    }
  });

  it('sends progress notifications while it waits, when the client sent a progress token', async () => {
    const s = await serving({ approvals: { waitMs: 60_000, checkMs: 10, progressMs: 10 } });
    try {
      const client = await s.client();
      const progress: Progress[] = [];
      const calling = client.callTool({ name: 'orders__refund', arguments: { id: 'o-2' } }, undefined, {
        onprogress: (p) => progress.push(p),
      });
      await eventually('progress.length >= 2', () => progress.length >= 2);
      const [item] = await s.wardrik.inbox.list();
      assert.match(progress[0]!.message ?? '', new RegExp(`inbox item ${item!.id}`));
      assert.ok(progress[1]!.progress > progress[0]!.progress);
      await s.wardrik.inbox.deny(item!.id, { reason: 'not this one' });
      const result = await calling;
      assert.equal(result.isError, true);
      assert.match(text(result), /refused this call: not this one/);
      assert.deepEqual(s.ledger.refunds, []);
    } finally {
      await s.close();
    }
  });

  it('past waitMs says the call waits (with the inbox id) and that nothing ran', async () => {
    const time = manualTime(Date.now());
    const s = await serving({ approvals: { waitMs: 60_000 } }, { container: manualTimeContainer(time) });
    try {
      // In memory, an answer the server sent would have arrived by the time the advance settles.
      const client = await inMemoryClient(s);
      let answered = false;
      const calling = client
        .callTool({ name: 'orders__refund', arguments: { id: 'o-3' } })
        .finally(() => (answered = true));
      await eventually('the call to park', async () => (await s.wardrik.inbox.list()).length === 1);
      await time.advance(59_999);
      assert.equal(answered, false, 'still held a moment before waitMs');
      await time.advance(1);
      const result = await calling;
      const [item] = await s.wardrik.inbox.list();
      assert.equal(result.isError, true);
      assert.match(text(result), new RegExp(`waiting for a person \\(inbox item ${item!.id}\\)`));
      assert.match(text(result), /Nothing has run yet/);
      assert.equal((result._meta as Record<string, unknown>)['wardrik/inbox'], item!.id);
      assert.deepEqual(s.ledger.refunds, []);
    } finally {
      await s.close();
    }
  });

  it('joins the same inbox item when called again with the same arguments, and gets the one result once approved', async () => {
    const s = await serving({ approvals: { waitMs: 20 } });
    try {
      const client = await s.client();
      const other = await s.client();
      await client.callTool({ name: 'orders__refund', arguments: { id: 'o-4' } });
      // Again, twice at once, while it still waits: the same item, no new one.
      const again = await Promise.all(
        [1, 2].map(() => client.callTool({ name: 'orders__refund', arguments: { id: 'o-4' } })),
      );
      const items = await s.wardrik.inbox.list();
      assert.equal(items.length, 1);
      for (const result of again) assert.match(text(result), new RegExp(`inbox item ${items[0]!.id}`));
      // Another session's same call is its own call.
      await other.callTool({ name: 'orders__refund', arguments: { id: 'o-4' } });
      assert.equal((await s.wardrik.inbox.list()).length, 2);
      await s.wardrik.inbox.approve(items[0]!.id);
      assert.deepEqual(s.ledger.refunds, ['o-4']);
      const answered = await client.callTool({ name: 'orders__refund', arguments: { id: 'o-4' } });
      assert.equal(text(answered), 'refunded o-4');
      assert.deepEqual(s.ledger.refunds, ['o-4']);
      assert.equal((await s.store.listCalls({ run: client.session })).length, 1);
      // Once its result was given, the same arguments make a new call.
      await client.callTool({ name: 'orders__refund', arguments: { id: 'o-4' } });
      assert.equal((await s.store.listCalls({ run: client.session })).length, 2);
    } finally {
      await s.close();
    }
  });

  it('joins one inbox item when the same call comes three times at once, before any waits for a person', async () => {
    // The policy takes a turn of the event loop to decide, so all calls are in before one parks; the
    // third waits on the second, which joined the first.
    const s = await serving(
      { approvals: { waitMs: 20 } },
      { policy: { decide: async () => (await nextTurn(), undefined) } },
    );
    try {
      const client = await inMemoryClient(s);
      const both = await Promise.all(
        [1, 2, 3].map(() => client.callTool({ name: 'orders__refund', arguments: { id: 'o-7' } })),
      );
      const items = await s.wardrik.inbox.list();
      assert.equal(items.length, 1);
      for (const result of both) assert.match(text(result), new RegExp(`inbox item ${items[0]!.id}`));
      await s.wardrik.inbox.approve(items[0]!.id);
      assert.deepEqual(s.ledger.refunds, ['o-7']);
      const again = await Promise.all(
        [1, 2].map(() => client.callTool({ name: 'orders__refund', arguments: { id: 'o-7' } })),
      );
      for (const result of again) assert.equal(text(result), 'refunded o-7');
      assert.deepEqual(s.ledger.refunds, ['o-7']);
    } finally {
      await s.close();
    }
  });

  it('runs the same call sent twice at once twice when neither waits for a person', async () => {
    const s = await serving(
      { approvals: { waitMs: 20 } },
      {
        policy: {
          rules: [{ match: 'orders/refund', action: 'allow' }],
          decide: async () => (await nextTurn(), undefined),
        },
      },
    );
    try {
      const client = await inMemoryClient(s);
      const both = await Promise.all(
        [1, 2].map(() => client.callTool({ name: 'orders__refund', arguments: { id: 'o-8' } })),
      );
      for (const result of both) assert.equal(text(result), 'refunded o-8');
      assert.deepEqual(s.ledger.refunds, ['o-8', 'o-8']);
      assert.deepEqual(await s.wardrik.inbox.list(), []);
    } finally {
      await s.close();
    }
  });

  it('a different argument is a different call', async () => {
    const s = await serving({ approvals: { waitMs: 0 } });
    try {
      const client = await s.client();
      await client.callTool({ name: 'orders__refund', arguments: { id: 'o-5' } });
      await client.callTool({ name: 'orders__refund', arguments: { id: 'o-6' } });
      assert.deepEqual((await s.wardrik.inbox.list()).map((item) => (item.arguments as { id: string }).id).sort(), [
        'o-5',
        'o-6',
      ]);
    } finally {
      await s.close();
    }
  });
});
