import 'reflect-metadata';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { container as rootContainer } from 'tsyringe';
import { answerText, callTool, ConfigurationError, Tokens, Wardrik, type ToolsetClass } from '../../src/index.js';

// dist/test/tools → the repository root.
const root = fileURLToPath(new URL('../../../', import.meta.url));
const fixture = join(root, 'test/fixtures/no-metadata/web-tools.fixture.ts');

/**
 * Keeps every import outside the bundle, pointing at the very modules this test uses: `wardrik` at the
 * compiled public API (so `instanceof ConfigurationError` holds), packages at their installed files.
 */
const sameModules: Plugin = {
  name: 'same-modules',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => ({
      path:
        args.path === 'wardrik' ? new URL('../../src/index.js', import.meta.url).href : import.meta.resolve(args.path),
      external: true,
    }));
  },
};

interface Fixture {
  readonly WebTools: ToolsetClass;
  readonly WebToolsWithInput: ToolsetClass;
  readonly OrderTools: ToolsetClass;
  readonly OrderService: new () => object;
}

describe('A toolset built without decorator metadata (esbuild)', () => {
  let dir: string;
  let loaded: Fixture;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wardrik-no-metadata-'));
    const outfile = join(dir, 'web-tools.mjs');
    await build({
      entryPoints: [fixture],
      outfile,
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      logLevel: 'silent',
      plugins: [sameModules],
      // Legacy decorators, as the project compiles them, but esbuild emits no design:paramtypes.
      tsconfigRaw: { compilerOptions: { experimentalDecorators: true, useDefineForClassFields: false } },
    });
    loaded = (await import(pathToFileURL(outfile).href)) as Fixture;
  });

  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('really has no design:paramtypes', () => {
    assert.equal(Reflect.getMetadata('design:paramtypes', loaded.WebTools.prototype, 'search'), undefined);
  });

  it('fails at create naming the class, the method and both fixes', async () => {
    await assert.rejects(Wardrik.create({ toolsets: [loaded.WebTools], store: 'memory:' }), (error: Error) => {
      assert.ok(error instanceof ConfigurationError, `got ${error.name}`);
      assert.match(error.message, /class "WebTools"/);
      assert.match(error.message, /Tool "search"/);
      assert.ok(error.message.includes('@Tool({ input:'), error.message);
      assert.match(error.message, /emitDecoratorMetadata/);
      return true;
    });
  });

  it('works when the tool names its DTO with @Tool({ input })', async () => {
    const wardrik = await Wardrik.create({ toolsets: [loaded.WebToolsWithInput], store: 'memory:' });
    try {
      assert.deepEqual(wardrik.tools()[0]!.inputSchema.required, ['query']);
      const tools = wardrik.container
        .resolve(Tokens.Catalog)
        .entries()
        .map((entry) => entry.tool);
      const ok = await callTool(tools, { name: 'search', arguments: { query: 'mugs' } });
      assert.equal(answerText(ok), 'results for mugs');
      const bad = await callTool(tools, { name: 'search', arguments: { query: 'm' } });
      assert.equal(bad.status, 'error');
      assert.match(answerText(bad), /- query: query must be longer than or equal to 2 characters/);
    } finally {
      await wardrik.close();
    }
  });

  it('refuses a toolset with constructor parameters, saying there is no decorator metadata and the fix', async () => {
    const app = rootContainer.createChildContainer();
    app.registerSingleton(loaded.OrderService);
    await assert.rejects(
      Wardrik.create({ container: app, toolsets: [loaded.OrderTools], store: 'memory:' }),
      (error: Error) => {
        assert.ok(error instanceof ConfigurationError, `got ${error.name}: ${error.message}`);
        assert.match(error.message, /class OrderTools/);
        assert.match(error.message, /no decorator metadata \(tsx\/esbuild\?\)/);
        assert.match(error.message, /emitDecoratorMetadata/);
        assert.match(error.message, /@inject\(/);
        assert.doesNotMatch(error.message, /TypeInfo not known/);
        return true;
      },
    );
  });

  it('takes an instance built by the app instead', async () => {
    const orders = new loaded.OrderService();
    const tools = new (loaded.OrderTools as unknown as new (o: object) => object)(orders);
    const wardrik = await Wardrik.create({ toolsets: [tools], store: 'memory:' });
    try {
      const catalog = wardrik.container
        .resolve(Tokens.Catalog)
        .entries()
        .map((entry) => entry.tool);
      assert.equal(answerText(await callTool(catalog, { name: 'find', arguments: { query: 'A1' } })), 'order A1');
    } finally {
      await wardrik.close();
    }
  });
});
