import 'reflect-metadata';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { CLI, json, wardrik } from '../cli/helpers.js';
import { eventually } from '../eventually.js';
import { TasksClient, type WireResult } from './tasks-client.js';

const ORDERS = fileURLToPath(new URL('../../examples/orders/order-tools.js', import.meta.url));
const STATE_KEY = 'a-state-key-of-at-least-32-characters-4567';

/** Approves the one pending item with `wardrik approve`, in another process. */
async function approveFromAnotherProcess(store: string): Promise<void> {
  let items: { id: string }[] = [];
  await eventually(
    'one item in `wardrik inbox`',
    async () =>
      (items = json<{ items: { id: string }[] }>(await wardrik(['inbox', '--json', '--store', store])).items).length ===
      1,
  );
  const approved = await wardrik(['approve', items[0]!.id, '--by', 'ana', '--store', store]);
  assert.equal(approved.code, 0, approved.stderr);
}

async function completed(client: TasksClient, taskId: string): Promise<WireResult> {
  let task: WireResult = {};
  await eventually('the task completed', async () => (task = await client.get(taskId)).status === 'completed');
  return task;
}

function scratchStore(): string {
  return `sqlite:${join(mkdtempSync(join(tmpdir(), 'wardrik-tasks-')), 'w.db')}`;
}

describe('wardrik serve: the tasks extension', () => {
  it('over real stdio: a call waiting for a person is a task; after `wardrik approve`, tasks/get has its one result', async () => {
    const store = scratchStore();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'serve', ORDERS, '--stdio', '--store', store, '--agent', 'desktop'],
      stderr: 'pipe',
    });
    const client = await TasksClient.connect(transport);
    try {
      const created = await client.call('orders__refund_order', { orderId: 'ord_1001' });
      assert.equal(created.resultType, 'task', JSON.stringify(created));
      assert.equal((await client.get(created.taskId!)).status, 'working');
      await approveFromAnotherProcess(store);
      const done = await completed(client, created.taskId!);
      assert.deepEqual(done.result?.structuredContent, { orderId: 'ord_1001', amountCents: 4999 });
      // Polling more never runs it again: the journal has one succeeded call.
      assert.deepEqual((await client.get(created.taskId!)).result, done.result);
    } finally {
      await client.close();
    }
  });

  it('over real HTTP: a task created by one `wardrik serve` process is answered by another on the same store', async () => {
    const store = scratchStore();
    const start = () => {
      const child = spawn(
        process.execPath,
        [
          CLI,
          'serve',
          ORDERS,
          '--http',
          '127.0.0.1:0',
          '--unauthenticated',
          '--state-key-env',
          'STATE_KEY',
          '--store',
          store,
        ],
        { env: { ...process.env, STATE_KEY }, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      return {
        child,
        url: async () => (
          await eventually('listening', () => /at (http:\S+);/.test(stderr)),
          /at (http:\S+);/.exec(stderr)![1]!
        ),
      };
    };
    const one = start();
    const two = start();
    try {
      const first = await TasksClient.connect(await one.url());
      const second = await TasksClient.connect(await two.url());
      const created = await first.call('orders__refund_order', { orderId: 'ord_1001' });
      assert.equal(created.resultType, 'task');
      assert.equal((await second.get(created.taskId!)).status, 'working');
      await approveFromAnotherProcess(store);
      const [onTwo, onOne] = await Promise.all([completed(second, created.taskId!), completed(first, created.taskId!)]);
      assert.deepEqual(onTwo.result?.structuredContent, { orderId: 'ord_1001', amountCents: 4999 });
      assert.deepEqual(onOne.result?.structuredContent, onTwo.result?.structuredContent);
      await first.close();
      await second.close();
    } finally {
      one.child.kill('SIGKILL');
      two.child.kill('SIGKILL');
    }
  });
});
