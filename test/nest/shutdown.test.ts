import 'reflect-metadata';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { eventually } from '../eventually.js';

const main = fileURLToPath(new URL('../../examples/nest/main.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'wardrik-nest-'));
after(() => rmSync(dir, { recursive: true, force: true }));

for (const adapter of ['express', 'fastify'] as const) {
  describe(`The example NestJS app on ${adapter}, as a process`, () => {
    it('serves MCP through its Nest route, then closes Wardrik and exits on SIGTERM', async () => {
      const child = spawn(process.execPath, [main], {
        env: {
          ...process.env,
          NEST_ADAPTER: adapter,
          PORT: '0',
          WARDRIK_STORE: `sqlite:${join(dir, `${adapter}.db`)}`,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
      const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
      try {
        const url = await eventually('the app listens', () => /listening at (http:\/\/\S+)/.exec(output)?.[1]);
        const client = new Client({ name: 'shutdown-test', version: '1.0.0' });
        await client.connect(
          new StreamableHTTPClientTransport(new URL('/mcp', url), {
            requestInit: { headers: { authorization: 'Bearer agent-token' } },
          }),
        );
        const found = await client.callTool({ name: 'orders__find_order', arguments: { orderId: 'ord_1' } });
        assert.notEqual(found.isError, true);
        await client.close();
        child.kill('SIGTERM');
        const [code, signal] = await exited;
        assert.ok(code === 0 || signal === 'SIGTERM', `exited with ${code} / ${signal}: ${output}`);
        assert.match(output, /\[Wardrik\].*Wardrik closed on SIGTERM/);
      } finally {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      }
    });
  });
}
