import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { CallToolResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { serving, text } from './helpers.js';
import { eventually } from '../eventually.js';

describe('WardrikMcpServer, with task-augmented calls (MCP tasks)', () => {
  it('answers with a task that completes with the result when a person approves, however long past waitMs', async () => {
    const s = await serving({ approvals: { waitMs: 10, checkMs: 10 } });
    try {
      const client = await s.client();
      await client.listTools();
      const statuses: string[] = [];
      let result: CallToolResult | undefined;
      for await (const message of client.experimental.tasks.callToolStream(
        { name: 'orders__refund', arguments: { id: 'o-9' } },
        CallToolResultSchema,
        { task: { ttl: 60_000 } },
      )) {
        if (message.type === 'taskCreated' || message.type === 'taskStatus') {
          statuses.push(
            `${message.task.status}${message.task.statusMessage === undefined ? '' : `: ${message.task.statusMessage}`}`,
          );
          const items = await s.wardrik.inbox.list();
          // Approved only once the task has said it waits, well past waitMs.
          if (items.length === 1 && statuses.some((status) => status.includes(`inbox item ${items[0]!.id}`)))
            await s.wardrik.inbox.approve(items[0]!.id);
        } else if (message.type === 'result') result = message.result as CallToolResult;
        else assert.fail(`unexpected ${JSON.stringify(message)}`);
      }
      assert.equal(text(result), 'refunded o-9');
      assert.deepEqual(result!._meta?.['wardrik/labels'], ['money', 'confidential']);
      assert.equal(statuses[0], 'working');
      assert.deepEqual(s.ledger.refunds, ['o-9']);
      assert.equal((await s.wardrik.inbox.list()).length, 0);
    } finally {
      await s.close();
    }
  });

  it("stops the call's signal when the client cancels the task", async () => {
    const s = await serving();
    try {
      const client = await s.client();
      await client.listTools();
      for await (const message of client.experimental.tasks.callToolStream(
        { name: 'orders__slow', arguments: { tag: 'task' } },
        CallToolResultSchema,
        { task: { ttl: 60_000 } },
      )) {
        if (message.type === 'taskCreated') {
          await eventually(
            "(await s.store.listCalls({ run: client.session })).some((c) => c.state === 'started')",
            async () => (await s.store.listCalls({ run: client.session })).some((c) => c.state === 'started'),
          );
          await client.experimental.tasks.cancelTask(message.task.taskId);
        }
        if (message.type === 'error') break;
      }
      await eventually("s.ledger.aborted.includes('task')", () => s.ledger.aborted.includes('task'));
    } finally {
      await s.close();
    }
  });

  it("never shows one session's tasks or their results to another, over connect() (stdio) or HTTP", async () => {
    const s = await serving();
    const connected = async (): Promise<Client> => {
      const [client, server] = InMemoryTransport.createLinkedPair();
      await s.server.connect(server);
      const sdk = new Client({ name: 'connected', version: '1' });
      await sdk.connect(client);
      return sdk;
    };
    try {
      const alice = await connected();
      const mallory = await connected();
      const overHttp = await s.client();
      let taskId: string | undefined;
      for await (const message of alice.experimental.tasks.callToolStream(
        { name: 'orders__find_order', arguments: { id: 'o-secret' } },
        CallToolResultSchema,
        { task: { ttl: 60_000 } },
      )) {
        if (message.type === 'taskCreated') taskId = message.task.taskId;
      }
      assert.equal(
        text(await alice.experimental.tasks.getTaskResult(taskId!, CallToolResultSchema)),
        '{"id":"o-secret","status":"shipped"}',
      );
      for (const other of [mallory, overHttp]) {
        assert.deepEqual((await other.experimental.tasks.listTasks()).tasks, []);
        await assert.rejects(other.experimental.tasks.getTaskResult(taskId!, CallToolResultSchema));
      }
      await Promise.all([alice.close(), mallory.close()]);
    } finally {
      await s.close();
    }
  });
});
