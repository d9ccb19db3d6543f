import 'reflect-metadata';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CLI, json, wardrik } from '../cli/helpers.js';
import { raw } from '../web/helpers.js';
import { text } from './helpers.js';
import { eventually } from '../eventually.js';

const ORDERS = fileURLToPath(new URL('../../examples/orders/order-tools.js', import.meta.url));

describe('wardrik serve', () => {
  it('serves a module over stdio, with nothing but MCP on stdout, and a call waits for `wardrik approve` in another process', async () => {
    const store = `sqlite:${join(mkdtempSync(join(tmpdir(), 'wardrik-serve-')), 'w.db')}`;
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'serve', ORDERS, '--stdio', '--store', store, '--agent', 'desktop'],
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const client = new Client({ name: 'desktop', version: '1.0.0' });
    const problems: Error[] = [];
    client.onerror = (error) => problems.push(error);
    await client.connect(transport);
    try {
      assert.deepEqual(
        (await client.listTools()).tools.map((t) => t.name),
        ['orders__find_order', 'orders__refund_order'],
      );
      const found = await client.callTool({ name: 'orders__find_order', arguments: { payment_intent: 'pi_123' } });
      assert.equal((found.structuredContent as { id: string }).id, 'ord_1001');
      const refunding = client.callTool({ name: 'orders__refund_order', arguments: { orderId: 'ord_1001' } });
      let items: { id: string; agent: string }[] = [];
      await eventually(
        'one item in `wardrik inbox`',
        async () =>
          (items = json<{ items: { id: string; agent: string }[] }>(
            await wardrik(['inbox', '--json', '--store', store]),
          ).items).length === 1,
      );
      assert.equal(items[0]!.agent, 'desktop');
      const approved = await wardrik(['approve', items[0]!.id, '--by', 'ana', '--store', store]);
      assert.equal(approved.code, 0, approved.stderr);
      const refunded = await refunding;
      assert.equal(refunded.isError, undefined, text(refunded));
      assert.deepEqual(refunded.structuredContent, { orderId: 'ord_1001', amountCents: 4999 });
      assert.deepEqual(problems, []);
      assert.match(stderr, /serving 2 tool\(s\) over stdio/);
    } finally {
      await client.close();
    }
  });

  it('reads a message of exactly 16 MiB over stdio, and closes at one byte more, saying why on stderr', async () => {
    const child = spawn(process.execPath, [CLI, 'serve', ORDERS, '--stdio', '--store', 'memory:'], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    try {
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
      /** A notification whose line, without its end, is `bytes` long. */
      const padded = (bytes: number): string => {
        const shell = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/padding', params: { pad: '' } });
        return shell.replace('"pad":""', `"pad":"${'x'.repeat(bytes - shell.length)}"`);
      };
      const line = (message: object): string => `${JSON.stringify(message)}\n`;
      child.stdin.write(
        line({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
        }),
      );
      child.stdin.write(line({ jsonrpc: '2.0', method: 'notifications/initialized' }));
      child.stdin.write(`${padded(16 * 1024 * 1024)}\n`);
      child.stdin.write(line({ jsonrpc: '2.0', id: 2, method: 'ping' }));
      await eventually('stdout.includes(\'"id":2\')', () => stdout.includes('"id":2'));
      assert.deepEqual(JSON.parse(stdout.trim().split('\n').at(-1)!), { jsonrpc: '2.0', id: 2, result: {} });
      child.stdin.write(`${padded(16 * 1024 * 1024 + 1)}\n`);
      assert.equal(await exited, 0);
      assert.match(stderr, /longer than 16777216 bytes, the most this server reads; closing the connection/);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('serves over HTTP with a bearer token from the environment, and refuses calls without it', async () => {
    const store = `sqlite:${join(mkdtempSync(join(tmpdir(), 'wardrik-serve-')), 'w.db')}`;
    const token = 'a-long-random-test-token-0123456789';
    const child = spawn(
      process.execPath,
      [CLI, 'serve', ORDERS, '--http', '127.0.0.1:0', '--token-env', 'MCP_TOKEN', '--store', store],
      {
        env: { ...process.env, MCP_TOKEN: token },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    try {
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      await eventually('/at (http:\\S+)/.test(stderr)', () => /at (http:\S+)/.test(stderr));
      const url = /at (http:\S+);/.exec(stderr)![1]!;
      const refused = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      assert.equal(refused.status, 401);
      const client = new Client({ name: 'agent', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(url), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      );
      const found = await client.callTool({ name: 'orders__find_order', arguments: { payment_intent: 'pi_123' } });
      assert.equal((found.structuredContent as { id: string }).id, 'ord_1001');
      await client.close();
      child.kill('SIGTERM');
      const code = await new Promise((resolve) => child.on('close', resolve));
      assert.equal(code, 0);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('refuses --http without --token-env or --unauthenticated, and both transports at once', async () => {
    const noAuth = await wardrik(['serve', ORDERS, '--http', '127.0.0.1:0', '--store', 'memory:']);
    assert.equal(noAuth.code, 2);
    assert.match(noAuth.stderr, /--token-env NAME/);
    const both = await wardrik(['serve', ORDERS, '--http', '127.0.0.1:0', '--stdio', '--store', 'memory:']);
    assert.equal(both.code, 2);
    assert.match(both.stderr, /exactly one of --stdio/);
  });

  it('answers only the Host names --allowed-host lists, and refuses a --trust-proxy that is no header name', async () => {
    const child = spawn(
      process.execPath,
      [
        CLI,
        'serve',
        ORDERS,
        '--http',
        '127.0.0.1:0',
        '--unauthenticated',
        '--allowed-host',
        'mcp.example.com',
        '--store',
        'memory:',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    try {
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      await eventually('/at (http:\\S+)/.test(stderr)', () => /at (http:\S+)/.test(stderr));
      const url = /at (http:\S+);/.exec(stderr)![1]!;
      const post = (host: string) =>
        raw(url, {
          method: 'POST',
          headers: { host, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: '{}',
        });
      assert.equal((await post('mcp.example.com')).status, 400);
      const loopback = await post(new URL(url).host);
      assert.equal(loopback.status, 403);
      assert.match(loopback.body, /is not allowed here \(DNS-rebinding protection\)/);
    } finally {
      child.kill('SIGKILL');
    }
    const badHeader = await wardrik([
      'serve',
      ORDERS,
      '--http',
      '127.0.0.1:0',
      '--unauthenticated',
      '--trust-proxy',
      'x forwarded',
      '--store',
      'memory:',
    ]);
    assert.equal(badHeader.code, 2);
    assert.match(badHeader.stderr, /http\.trustProxy is the name of the header your proxy sets/);
  });
});
