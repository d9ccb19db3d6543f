import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

const INDEX = pathToFileURL(fileURLToPath(new URL('../../src/index.js', import.meta.url))).href;
const ORDERS = pathToFileURL(fileURLToPath(new URL('../../examples/orders/order-tools.js', import.meta.url))).href;

interface Loaded {
  /** Packages among CommonJS modules (ESM's import of CommonJS fills the same cache). */
  readonly packages: string[];
  /** Wardrik's own modules, as paths under src/. */
  readonly wardrik: string[];
  /** Whether node:http is loaded. */
  readonly http: boolean;
}

/** What a fresh process has loaded once a Wardrik serves `tools` over an SDK transport. */
function loadedAfterServing(tools: string, imports: string): Loaded {
  const script = join(mkdtempSync(join(tmpdir(), 'wardrik-startup-')), 'serve.mjs');
  writeFileSync(
    script,
    `import { createRequire, registerHooks } from 'node:module';
const modules = [];
registerHooks({ load: (url, context, next) => (modules.push(url), next(url, context)) });
const { defineTool, Wardrik } = await import(${JSON.stringify(INDEX)});
${imports}
const wardrik = await Wardrik.create({ store: 'memory:', recoverMs: Infinity, ${tools} });
wardrik.mcpServer({ tools: ['**'] });
const packages = new Set(Object.keys(createRequire(import.meta.url).cache).map((path) => /node_modules\\/((?:@[^/]+\\/)?[^/]+)\\/(.*)/.exec(path)).filter(Boolean).map((m) => m[1] + (m[1] === 'rxjs' && m[2] === 'dist/cjs/index.js' ? ' index' : '')));
const own = modules.map((url) => /\\/dist\\/src\\/(.*)\\.js$/.exec(url)?.[1]).filter(Boolean);
console.log(JSON.stringify({ packages: [...packages].sort(), wardrik: own, http: process.moduleLoadList.includes('NativeModule http') }));
await wardrik.close();
`,
  );
  return JSON.parse(execFileSync(process.execPath, [script]).toString()) as Loaded;
}

describe('Start-up loads what the served tools use', () => {
  it("serves JSON Schema tools without class-validator, rxjs's index, node:http or the web inbox", () => {
    const loaded = loadedAfterServing(
      `tools: { bench: [defineTool({ name: 'echo', description: 'Echoes.', annotations: { readOnly: true }, run: () => 'x' })] }`,
      '',
    );
    for (const heavy of [
      'class-validator',
      'class-transformer',
      'class-validator-jsonschema',
      'validator',
      'rxjs index',
      'ipaddr.js',
    ])
      assert.ok(!loaded.packages.includes(heavy), `${heavy} was loaded: ${loaded.packages.join(', ')}`);
    assert.ok(loaded.packages.includes('rxjs'), loaded.packages.join(', '));
    assert.equal(loaded.http, false);
    // The web inbox loads when a Wardrik makes one.
    assert.ok(loaded.wardrik.includes('di/wardrik'), loaded.wardrik.join(', '));
    const web = loaded.wardrik.filter((module) => /^web\/(inbox-web|page|api)$/.test(module));
    assert.deepEqual(web, []);
  });

  it('loads class-validator-jsonschema for a toolset class with DTOs', () => {
    const loaded = loadedAfterServing(
      'toolsets: [OrderTools]',
      `const { OrderTools } = await import(${JSON.stringify(ORDERS)});`,
    );
    assert.ok(loaded.packages.includes('class-validator-jsonschema'), loaded.packages.join(', '));
    assert.ok(loaded.packages.includes('class-validator'), loaded.packages.join(', '));
  });
});
