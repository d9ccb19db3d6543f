import 'reflect-metadata';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { CLI, json, wardrik } from '../cli/helpers.js';
import { eventually } from '../eventually.js';
import { text, type ModernResult } from './helpers.js';

const ORDERS = fileURLToPath(new URL('../../examples/orders/order-tools.js', import.meta.url));
const STATE_KEY = 'a-state-key-of-at-least-32-characters-0123';

/** A v2 client pinned to 2026-07-28, in manual multi-round-trip mode. */
function pinned(): Client {
  return new Client(
    { name: 'modern', version: '2.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } }, inputRequired: { autoFulfill: false } },
  );
}

/** Calls a tool; an input_required answer comes back as it is. */
async function call(client: Client, name: string, args: object, extra: object = {}): Promise<ModernResult> {
  return (await client.callTool(
    { name, arguments: args as Record<string, unknown>, ...extra },
    { allowInputRequired: true },
  )) as ModernResult;
}

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

describe('wardrik serve for MCP 2026-07-28 clients', () => {
  it('over real stdio: a call that waits answers input_required, and its retry after `wardrik approve` gets the one result', async () => {
    const store = `sqlite:${join(mkdtempSync(join(tmpdir(), 'wardrik-serve-')), 'w.db')}`;
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'serve', ORDERS, '--stdio', '--store', store, '--agent', 'desktop'],
      stderr: 'pipe',
    });
    const client = pinned();
    await client.connect(transport);
    try {
      assert.equal(client.getProtocolEra(), 'modern');
      assert.deepEqual(
        (await client.listTools()).tools.map((t) => t.name),
        ['orders__find_order', 'orders__refund_order'],
      );
      const found = await call(client, 'orders__find_order', { payment_intent: 'pi_123' });
      assert.equal((found.structuredContent as { id: string }).id, 'ord_1001');
      const waiting = await call(client, 'orders__refund_order', { orderId: 'ord_1001' });
      assert.equal(waiting.resultType, 'input_required');
      await approveFromAnotherProcess(store);
      const refunded = await call(
        client,
        'orders__refund_order',
        { orderId: 'ord_1001' },
        { requestState: waiting.requestState },
      );
      assert.equal(refunded.isError, undefined, text(refunded));
      assert.deepEqual(refunded.structuredContent, { orderId: 'ord_1001', amountCents: 4999 });
    } finally {
      await client.close();
    }
  });

  it('over real HTTP, with the state key from the environment: the retry may reach another process on the same store', async () => {
    const store = `sqlite:${join(mkdtempSync(join(tmpdir(), 'wardrik-serve-')), 'w.db')}`;
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
      const first = pinned();
      await first.connect(new StreamableHTTPClientTransport(new URL(await one.url())));
      const second = pinned();
      await second.connect(new StreamableHTTPClientTransport(new URL(await two.url())));
      const waiting = await call(first, 'orders__refund_order', { orderId: 'ord_1001' });
      assert.equal(waiting.resultType, 'input_required');
      await approveFromAnotherProcess(store);
      let refunded: ModernResult = waiting;
      await eventually('the retry on the other process has the result', async () => {
        refunded = await call(
          second,
          'orders__refund_order',
          { orderId: 'ord_1001' },
          { requestState: waiting.requestState },
        );
        return refunded.resultType === undefined;
      });
      assert.deepEqual(refunded.structuredContent, { orderId: 'ord_1001', amountCents: 4999 });
      await first.close();
      await second.close();
    } finally {
      one.child.kill('SIGKILL');
      two.child.kill('SIGKILL');
    }
  });
});
