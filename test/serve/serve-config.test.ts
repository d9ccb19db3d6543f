import 'reflect-metadata';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CLI, json, wardrik } from '../cli/helpers.js';
import { text } from './helpers.js';
import { eventually } from '../eventually.js';

const CONFIGURED = fileURLToPath(new URL('./configured-module.js', import.meta.url));
const EXAMPLE = fileURLToPath(new URL('../../examples/serve/served-orders.js', import.meta.url));
const ORDERS = fileURLToPath(new URL('../../examples/orders/order-tools.js', import.meta.url));
const INDEX = pathToFileURL(fileURLToPath(new URL('../../src/index.js', import.meta.url))).href;

function sqliteStore(): string {
  return `sqlite:${join(mkdtempSync(join(tmpdir(), 'wardrik-serve-config-')), 'w.db')}`;
}

/** Writes `content` to a new file named `name` in a directory of its own, and gives its path. */
function file(name: string, content: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'wardrik-serve-config-')), name);
  writeFileSync(path, content);
  return path;
}

/** A module serving one read-only tool, whose `wardrikOptions` export is `options` (JavaScript source). */
function moduleWith(options: string): string {
  return file(
    'tools.mjs',
    `import { defineTool } from ${JSON.stringify(INDEX)};
export const ping = defineTool({ name: 'ping', description: 'Answer pong.', annotations: { readOnly: true }, run: () => 'pong' });
export const wardrikOptions = ${options};
`,
  );
}

/** `wardrik serve ARGS --http 127.0.0.1:0 --unauthenticated` in a child process, once it listens. */
async function httpServer(args: readonly string[]) {
  const child = spawn(process.execPath, [CLI, 'serve', ...args, '--http', '127.0.0.1:0', '--unauthenticated'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  await Promise.race([
    eventually('the server says where it listens', () => /at (http:\S+);/.test(stderr)),
    exited.then((code) => Promise.reject(new Error(`wardrik serve exited (${code}): ${stderr}`))),
  ]);
  const client = new Client({ name: 'agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(/at (http:\S+);/.exec(stderr)![1]!)));
  return {
    client,
    stderr: () => stderr,
    async stop() {
      await client.close();
      child.kill('SIGTERM');
      return exited;
    },
  };
}

/** An SDK client on `wardrik serve ARGS --stdio`, and what the command wrote to stderr. */
async function stdioClient(args: readonly string[]) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'serve', ...args, '--stdio'],
    stderr: 'pipe',
  });
  const output = { stderr: '' };
  transport.stderr?.on('data', (chunk: Buffer) => (output.stderr += chunk.toString()));
  const client = new Client({ name: 'desktop', version: '1.0.0' });
  await client.connect(transport);
  return Object.assign(client, { output });
}

describe('wardrik serve, configured by the module', () => {
  it("applies the policy, agent and budget of the module's wardrikOptions", async () => {
    const store = sqliteStore();
    const client = await stdioClient([CONFIGURED, '--toolset', 'shop', '--store', store, '--wait-ms', '1']);
    try {
      const wiped = await client.callTool({ name: 'shop__wipe', arguments: {} });
      assert.equal(wiped.isError, true);
      assert.match(text(wiped), /The policy does not allow this call \(rule 2 \(shop\/wipe deny\)\)/);
      const first = await client.callTool({ name: 'shop__refund', arguments: { id: 'o-1' } });
      assert.equal(first.isError, undefined, text(first));
      assert.deepEqual(first.structuredContent, { refunded: 'o-1' });
      const second = await client.callTool({ name: 'shop__refund', arguments: { id: 'o-2' } });
      assert.deepEqual(second.structuredContent, { refunded: 'o-2' });
      const third = await client.callTool({ name: 'shop__refund', arguments: { id: 'o-3' } });
      assert.equal(third.isError, true);
      assert.match(text(third), /budget of \$2 is spent, so this call did not run/);
      const runs = json<{ runs: { agent: string }[] }>(await wardrik(['runs', '--json', '--store', store])).runs;
      assert.deepEqual(
        runs.map((run) => run.agent),
        ['desktop'],
      );
      const inbox = json<{ items: unknown[] }>(await wardrik(['inbox', '--json', '--store', store])).items;
      assert.deepEqual(inbox, []);
    } finally {
      await client.close();
    }
  });

  it('serves examples/serve/served-orders as its wardrikOptions say: instructions, agent, a refund that asks', async () => {
    const store = sqliteStore();
    const client = await stdioClient([EXAMPLE, '--store', store]);
    try {
      assert.match(client.getInstructions() ?? '', /Refunds wait for a person/);
      const found = await client.callTool({ name: 'orders__find_order', arguments: { payment_intent: 'pi_123' } });
      assert.equal((found.structuredContent as { id: string }).id, 'ord_1001');
      const refunding = client.callTool({ name: 'orders__refund_order', arguments: { orderId: 'ord_1001' } });
      let items: { id: string; agent: string; tool: string }[] = [];
      await eventually(
        'the refund waits in the inbox',
        async () =>
          (items = json<{ items: typeof items }>(await wardrik(['inbox', '--json', '--store', store])).items).length ===
          1,
      );
      assert.equal(items[0]!.agent, 'claude-desktop');
      assert.equal(items[0]!.tool, 'orders/refund_order');
      await wardrik(['deny', items[0]!.id, '--reason', 'Not this one', '--store', store]);
      const refused = await refunding;
      assert.equal(refused.isError, true);
      assert.match(text(refused), /Not this one/);
      assert.match(client.output.stderr, /options from wardrikOptions exported by .*served-orders\.js/);
    } finally {
      await client.close();
    }
  });

  it('takes the options from --config FILE over HTTP, with the flags winning over its serve options', async () => {
    const store = sqliteStore();
    const config = file(
      'serve.json',
      JSON.stringify({
        policy: { rules: [{ match: 'orders/refund_order', action: 'allow' }] },
        serve: { agent: 'ops', names: 'bare', approvals: { waitMs: 1 } },
      }),
    );
    const served = await httpServer([ORDERS, '--config', config, '--store', store, '--agent', 'night-shift']);
    try {
      assert.deepEqual(
        (await served.client.listTools()).tools.map((tool) => tool.name),
        ['find_order', 'refund_order'],
      );
      const refunded = await served.client.callTool({ name: 'refund_order', arguments: { orderId: 'ord_1001' } });
      assert.equal(refunded.isError, undefined, text(refunded));
      assert.deepEqual(refunded.structuredContent, { orderId: 'ord_1001', amountCents: 4999 });
      assert.match(served.stderr(), /options from --config .*serve\.json/);
      const runs = json<{ runs: { agent: string }[] }>(await wardrik(['runs', '--json', '--store', store])).runs;
      assert.deepEqual(
        runs.map((run) => run.agent),
        ['night-shift'],
      );
    } finally {
      assert.equal(await served.stop(), 0);
    }
  });

  it('sends a held call progress every --progress-ms, and gives its result once a person approves', async () => {
    const store = sqliteStore();
    const served = await httpServer([ORDERS, '--store', store, '--progress-ms', '20']);
    try {
      let progress = 0;
      const refunding = served.client.callTool(
        { name: 'orders__refund_order', arguments: { orderId: 'ord_1001' } },
        undefined,
        { onprogress: () => void progress++ },
      );
      await eventually('two progress notifications', () => progress >= 2);
      const [item] = json<{ items: { id: string }[] }>(await wardrik(['inbox', '--json', '--store', store])).items;
      const approved = await wardrik(['approve', item!.id, '--by', 'ana', '--store', store]);
      assert.equal(approved.code, 0, approved.stderr);
      assert.deepEqual((await refunding).structuredContent, { orderId: 'ord_1001', amountCents: 4999 });
    } finally {
      await served.stop();
    }
  });

  describe('refuses bad options at start-up, naming the option and the fix', () => {
    const refused = async (args: readonly string[], message: RegExp) => {
      const result = await wardrik(['serve', ...args, '--stdio', '--store', 'memory:']);
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, message);
    };

    it('a misspelt option of wardrikOptions, with the one it may be', () =>
      refused(
        [moduleWith(`{ polcy: { rules: [] } }`)],
        /wardrikOptions\.polcy is not an option of wardrik serve\. Did you mean policy\? Its options are policy, runner, .*\. Correct wardrikOptions exported by .*tools\.mjs\./,
      ));

    it('a misspelt option of serve, in a --config file', () =>
      refused(
        [ORDERS, '--config', file('c.json', '{"serve":{"budgetUSD":5}}')],
        /serve\.budgetUSD is not an option of wardrik serve\. Did you mean serve\.budgetUsd\? serve takes tools, names, .*Correct --config .*c\.json\./,
      ));

    it('a budget that is no amount', () =>
      refused(
        [moduleWith(`{ serve: { budgetUsd: -1 } }`)],
        /wardrikOptions\.serve\.budgetUsd must be a number of US dollars of at least 0; got -1\. Correct wardrikOptions exported by/,
      ));

    it('an option the command sets itself', () =>
      refused(
        [ORDERS, '--config', file('c.json', '{"store":"memory:"}')],
        /^wardrik: store is not taken by wardrik serve: the store is --store URL \(or \$WARDRIK_STORE\)\. Correct --config/,
      ));

    it('a policy rule the library refuses, saying where it was read from', () =>
      refused(
        [moduleWith(`{ policy: { rules: [{ match: 'tools/ping', action: 'alow' }] } }`)],
        /Policy rule 1 \(tools\/ping alow\): action must be .*; got "alow"\. \(wardrik serve read its options from wardrikOptions exported by .*tools\.mjs\.\)/,
      ));

    it('a --config file that is not JSON, or is not an object', async () => {
      await refused(
        [ORDERS, '--config', file('c.json', '{ policy: ')],
        /--config .*c\.json is not JSON: .*Correct the file\./,
      );
      await refused(
        [ORDERS, '--config', file('c.json', '[]')],
        /The config must be an object of options, such as \{ "serve": \{ "budgetUsd": 5 \} \}\. Correct --config/,
      );
    });

    it('--config for a module that exports wardrikOptions', () =>
      refused(
        [CONFIGURED, '--config', file('c.json', '{}')],
        /configured-module\.js exports wardrikOptions and --config .*c\.json was given: one would be ignored\./,
      ));
  });
});
