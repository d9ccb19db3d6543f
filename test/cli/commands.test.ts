import 'reflect-metadata';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { after, describe, it } from 'node:test';
import { Wardrik } from '../../src/index.js';
import { json, wardrik, type CliResult } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'wardrik-cli-commands-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const toolsets = fileURLToPath(new URL('./toolsets.js', import.meta.url));
const index = pathToFileURL(fileURLToPath(new URL('../../src/index.js', import.meta.url))).href;

function exits(result: CliResult, code: number): void {
  assert.equal(
    result.code,
    code,
    `expected exit ${code}, got ${result.code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`,
  );
}

describe('The wardrik command', () => {
  describe('on its command line', () => {
    it('prints help with every command and the exit codes, exit 0', async () => {
      const result = await wardrik(['--help']);
      exits(result, 0);
      for (const command of ['inbox', 'approve', 'deny', 'answer', 'runs', 'show', 'tools', 'mcp'])
        assert.match(result.stdout, new RegExp(`\\n  ${command} `));
      assert.match(result.stdout, /Exit codes:\n  0  ok\n  1  unexpected error\n  2  bad usage/);
    });

    it('answers an unknown command or option, or a missing argument, with exit 2 and a pointer to --help', async () => {
      for (const args of [['bogus'], ['inbox', '--bogus'], ['approve'], []]) {
        const result = await wardrik(args, { cwd: dir });
        exits(result, 2);
      }
      const unknown = await wardrik(['inboxx'], { cwd: dir });
      assert.match(unknown.stderr, /unknown command 'inboxx'/);
      assert.match(unknown.stderr, /wardrik --help lists the commands and exit codes/);
      const asJson = await wardrik(['runs', '--limit', '0', '--json'], { cwd: dir });
      exits(asJson, 2);
      assert.deepEqual(JSON.parse(asJson.stderr), {
        error: {
          code: 'usage',
          exitCode: 2,
          message: "option '--limit <n>' argument '0' is invalid. a whole number of at least 1 is needed.",
        },
      });
    });
  });

  describe('when the store cannot be used', () => {
    it('says there is no store file (exit 5) rather than making an empty one', async () => {
      const cwd = join(dir, 'empty');
      mkdirSync(cwd);
      const result = await wardrik(['inbox'], { cwd });
      exits(result, 5);
      assert.match(
        result.stderr,
        new RegExp(
          `No Wardrik store at ${join(cwd, '.wardrik', 'wardrik.db')} \\(store "sqlite:\\.wardrik/wardrik\\.db"\\): the file does not exist`,
        ),
      );
      assert.match(result.stderr, /pass --store sqlite:PATH \(or set WARDRIK_STORE\)/);
      const asJson = await wardrik(['inbox', '--json'], { cwd });
      exits(asJson, 5);
      assert.equal(JSON.parse(asJson.stderr).error.code, 'store');
    });

    it('says PostgreSQL is unreachable (exit 5), naming host and port and never the password', async () => {
      const result = await wardrik(['runs', '--store', 'postgres://app:s3cret@127.0.0.1:1/test']);
      exits(result, 5);
      assert.match(
        result.stderr,
        /PostgreSQL store \(schema "wardrik" at 127\.0\.0\.1:1\) could not start: .*ECONNREFUSED.*Fix: nothing is listening there/,
      );
      assert.doesNotMatch(result.stderr, /s3cret/);
    });

    it('refuses a store URL it cannot read with exit 2, suggesting the closest one', async () => {
      const result = await wardrik(['inbox', '--store', 'sqllite:x.db']);
      exits(result, 2);
      assert.match(
        result.stderr,
        /--store: Store URL "sqllite:x\.db" cannot be used: .*Did you mean "sqlite:x\.db"\?.* Correct --store, or set WARDRIK_STORE\./,
      );
      // From the environment, the error names the variable to correct.
      const fromEnv = await wardrik(['inbox'], { env: { WARDRIK_STORE: 'sqllite:x.db' } });
      exits(fromEnv, 2);
      assert.match(
        fromEnv.stderr,
        /WARDRIK_STORE: Store URL "sqllite:x\.db" cannot be used: .* Correct WARDRIK_STORE, or pass --store\./,
      );
    });

    it('takes the store from WARDRIK_STORE when --store is not given', async () => {
      const file = join(dir, 'env', 'wardrik.db');
      const node = await Wardrik.create({ store: `sqlite:${file}`, recoverMs: Infinity });
      await node.close();
      const result = await wardrik(['inbox', '--json'], { env: { WARDRIK_STORE: `sqlite:${file}` } });
      exits(result, 0);
      assert.deepEqual(json(result), { store: `sqlite:${file}`, items: [] });
      const text = await wardrik(['inbox'], { env: { WARDRIK_STORE: `sqlite:${file}` } });
      assert.match(text.stdout, /The inbox is empty/);
    });
  });

  describe('tools MODULE', () => {
    it('describes toolset classes without building them, and defineTool values, with names, schemas and annotations', async () => {
      const result = await wardrik(['tools', toolsets]);
      exits(result, 0);
      assert.match(result.stdout, /^billing {2}\(class BillingTools; 2 tools\)/);
      assert.match(
        result.stdout,
        /billing__find_charge {3}\(policies and agents: billing\/find_charge\) {2}"Find charge"\n {4}Find the charge for a payment intent\.\n {4}annotations: (readOnly, timeout=5000|timeout=5000, readOnly)/,
      );
      assert.match(
        result.stdout,
        /"payment_intent": \{\n\s+"pattern": "\^pi_",\n\s+"type": "string",\n\s+"description": "Stripe payment intent ID, such as pi_123"/,
      );
      assert.match(result.stdout, /billing__refund_charge .*\n.*\n {4}annotations: idempotent/);
      assert.match(result.stdout, /tools {2}\(defineTool values \(more, orderStatus\); 2 tools\)/);
      assert.match(result.stdout, /tools__order_status/);
      assert.match(result.stdout, /skipped bad name!: its name "bad name!" is not 1 to 55 letters/);
    });

    it('prints JSON, under the --toolset name given for tool values', async () => {
      const out = json<{
        toolsets: {
          name: string;
          source: string;
          tools: { name: string; inputSchema: { required?: string[] }; annotations: Record<string, unknown> }[];
          skipped: { tool: string }[];
        }[];
      }>(await wardrik(['tools', toolsets, '--toolset', 'workers', '--json']));
      assert.deepEqual(
        out.toolsets.map((toolset) => toolset.name),
        ['billing', 'workers'],
      );
      const billing = out.toolsets[0]!;
      assert.deepEqual(
        billing.tools.map((tool) => tool.name),
        ['billing__find_charge', 'billing__refund_charge'],
      );
      assert.deepEqual(billing.tools[0]!.annotations, { readOnly: true, timeout: 5000 });
      assert.deepEqual(billing.tools[0]!.inputSchema.required, ['payment_intent']);
      assert.deepEqual(out.toolsets[1]!.tools.map((tool) => tool.name).sort(), [
        'workers__order_status',
        'workers__ping',
      ]);
      assert.deepEqual(
        out.toolsets[1]!.skipped.map((skip) => skip.tool),
        ['bad name!'],
      );
    });

    it('answers a missing module and one without toolsets with exit 3', async () => {
      const missing = await wardrik(['tools', join(dir, 'nope.js')]);
      exits(missing, 3);
      assert.match(missing.stderr, /No module at .*nope\.js/);
      const plain = join(dir, 'plain.mjs');
      writeFileSync(plain, 'export const answer = 42;\n');
      const none = await wardrik(['tools', plain]);
      exits(none, 3);
      assert.match(
        none.stderr,
        /exports no toolsets: no @Toolset class and no defineTool value among its exports \(answer\)/,
      );
    });

    it('answers a module that fails to import, or a toolset that cannot be registered, with exit 2 and the fix', async () => {
      const broken = join(dir, 'broken.mjs');
      writeFileSync(broken, "throw new Error('database URL missing');\n");
      const failing = await wardrik(['tools', broken]);
      exits(failing, 2);
      assert.match(failing.stderr, /could not be imported: database URL missing/);
      // What an esbuild build gives: decorators applied, no design:paramtypes.
      const noMetadata = join(dir, 'no-metadata.mjs');
      writeFileSync(
        noMetadata,
        `import { Tool, Toolset } from '${index}';\n` +
          `export class WebTools { search(args) { return args; } }\n` +
          `Tool({ description: 'Search the web.' })(WebTools.prototype, 'search', Object.getOwnPropertyDescriptor(WebTools.prototype, 'search'));\n` +
          `Toolset('web')(WebTools);\n`,
      );
      const unregistrable = await wardrik(['tools', noMetadata]);
      exits(unregistrable, 2);
      assert.match(
        unregistrable.stderr,
        /Toolset class WebTools exported as "WebTools" .* cannot be registered: Tool "search" on class "WebTools": cannot tell the argument type/,
      );
      // Node 22.18+ and 24 import .ts files by stripping their types, which cannot run decorators.
      const ts = join(dir, 'tools.ts');
      writeFileSync(
        ts,
        `import { Tool, Toolset } from '${index}';\n` +
          `@Toolset('web') export class WebTools {\n  @Tool({ description: 'Search.' }) search(args: { q: string }): string { return args.q; }\n}\n`,
      );
      const typescript = await wardrik(['tools', ts]);
      exits(typescript, 2);
      assert.match(typescript.stderr, /It is TypeScript: Node only strips its types, .* build it with tsc/);
    });
  });
});
