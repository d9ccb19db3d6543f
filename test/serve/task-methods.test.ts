import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { CallToolResultSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { serving, text, type Serving } from './helpers.js';
import { eventually } from '../eventually.js';
import { manualTimeContainer } from '../manual-time-container.js';
import { manualTime } from '../../src/testing/index.js';

/** A 2025-11-25 client (SDK v1, as such users run) connected to `s` over connect(). */
async function connected(s: Serving): Promise<Client> {
  const [client, server] = InMemoryTransport.createLinkedPair();
  await s.server.connect(server);
  const sdk = new Client({ name: 'tasks', version: '1' });
  await sdk.connect(client);
  return sdk;
}

/** Starts a task-augmented call and gives its task id, without waiting for its result. */
async function startTask(client: Client, id: string, ttl = 60_000): Promise<string> {
  const created = (await client.request(
    {
      method: 'tools/call',
      params: { name: 'orders__find_order', arguments: { id }, task: { ttl } },
    },
    // The answer to a task-augmented call is `{ task }`; any object passes here.
    CallToolResultSchema.passthrough(),
  )) as unknown as { task: { taskId: string; status: string } };
  assert.equal(created.task.status, 'working');
  return created.task.taskId;
}

function invalidParams(pattern: RegExp): (error: unknown) => boolean {
  return (error) => error instanceof McpError && error.code === -32602 && pattern.test(error.message);
}

describe("MCP tasks (2025-11-25) answered by Wardrik's own task methods on SDK v2", () => {
  it('runs 12 task calls at once, each with its own result, and lists them 10 a page', async () => {
    const s = await serving();
    try {
      const client = await connected(s);
      const ids = Array.from({ length: 12 }, (_, i) => `o-${i}`);
      const tasks = await Promise.all(ids.map((id) => startTask(client, id)));
      assert.equal(new Set(tasks).size, 12);
      const results = await Promise.all(
        tasks.map((taskId) => client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema)),
      );
      assert.deepEqual(
        results.map((result) => text(result)),
        ids.map((id) => `{"id":"${id}","status":"shipped"}`),
      );
      assert.deepEqual(
        results.map(
          (result) => (result._meta?.['io.modelcontextprotocol/related-task'] as { taskId?: string })?.taskId,
        ),
        tasks,
      );
      const first = await client.experimental.tasks.listTasks();
      assert.equal(first.tasks.length, 10);
      assert.equal(typeof first.nextCursor, 'string');
      const second = await client.experimental.tasks.listTasks(first.nextCursor);
      assert.equal(second.tasks.length, 2);
      assert.equal(second.nextCursor, undefined);
      assert.deepEqual([...first.tasks, ...second.tasks].map((task) => task.taskId).sort(), [...tasks].sort());
      assert.ok([...first.tasks, ...second.tasks].every((task) => task.status === 'completed'));
      await assert.rejects(client.experimental.tasks.listTasks('no-such-cursor'), invalidParams(/Invalid cursor/));
      await client.close();
    } finally {
      await s.close();
    }
  });

  it('refuses to cancel a finished task and names an unknown one, as SDK v1 did', async () => {
    const s = await serving();
    try {
      const client = await connected(s);
      const taskId = await startTask(client, 'o-1');
      await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
      assert.equal((await client.experimental.tasks.getTask(taskId)).status, 'completed');
      await assert.rejects(
        client.experimental.tasks.cancelTask(taskId),
        invalidParams(/Cannot cancel task in terminal status: completed/),
      );
      await assert.rejects(client.experimental.tasks.getTask('nope'), invalidParams(/Task not found/));
      await assert.rejects(
        client.experimental.tasks.getTaskResult('nope', CallToolResultSchema),
        invalidParams(/Task not found: nope/),
      );
      await client.close();
    } finally {
      await s.close();
    }
  });

  it('forgets a task once its ttl has passed, on the clock and timers Wardrik was given', async () => {
    const time = manualTime(Date.now());
    const s = await serving({}, { container: manualTimeContainer(time) });
    try {
      const client = await connected(s);
      const taskId = await startTask(client, 'o-2', 60_000);
      await time.advance(59_999);
      assert.ok((await client.experimental.tasks.listTasks()).tasks.some((task) => task.taskId === taskId));
      await time.advance(1);
      await eventually('the task is gone after its ttl', async () => {
        const listed = await client.experimental.tasks.listTasks();
        return !listed.tasks.some((task) => task.taskId === taskId);
      });
      await assert.rejects(client.experimental.tasks.getTask(taskId), invalidParams(/Task not found/));
      await client.close();
    } finally {
      await s.close();
    }
  });

  it('ends a cancelled task as cancelled: no result, and no second cancel', async () => {
    const s = await serving({ approvals: { waitMs: 10, checkMs: 10 } });
    try {
      const client = await connected(s);
      const created = (await client.request(
        { method: 'tools/call', params: { name: 'orders__refund', arguments: { id: 'o-3' }, task: { ttl: 60_000 } } },
        CallToolResultSchema.passthrough(),
      )) as unknown as { task: { taskId: string } };
      const { taskId } = created.task;
      await eventually('the refund waits in the inbox', async () => (await s.wardrik.inbox.list()).length === 1);
      const cancelled = await client.experimental.tasks.cancelTask(taskId);
      assert.equal(cancelled.status, 'cancelled');
      assert.equal((await client.experimental.tasks.getTask(taskId)).status, 'cancelled');
      await assert.rejects(
        client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema),
        (error: unknown) => error instanceof McpError && /has no result stored/.test(error.message),
      );
      await assert.rejects(
        client.experimental.tasks.cancelTask(taskId),
        invalidParams(/Cannot cancel task in terminal status: cancelled/),
      );
      await client.close();
    } finally {
      await s.close();
    }
  });
});
