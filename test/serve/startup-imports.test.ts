import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

const INDEX = pathToFileURL(fileURLToPath(new URL('../../src/index.js', import.meta.url))).href;
const ORDERS = pathToFileURL(fileURLToPath(new URL('../../examples/orders/order-tools.js', import.meta.url))).href;

/**
 * What a fresh process has loaded once a Wardrik serves `tools` over an SDK transport: the packages
 * among CommonJS modules (ESM's import of CommonJS fills the same cache), and whether node:http is.
 */
function loadedAfterServing(tools: string, imports: string): { packages: string[]; http: boolean } {
  const script = join(mkdtempSync(join(tmpdir(), 'wardrik-startup-')), 'serve.mjs');
  writeFileSync(
    script,
    `import { createRequire } from 'node:module';
import { defineTool, Wardrik } from ${JSON.stringify(INDEX)};
${imports}
const wardrik = await Wardrik.create({ store: 'memory:', recoverMs: Infinity, ${tools} });
wardrik.mcpServer({ tools: ['**'] });
const packages = new Set(Object.keys(createRequire(import.meta.url).cache).map((path) => /node_modules\\/((?:@[^/]+\\/)?[^/]+)\\/(.*)/.exec(path)).filter(Boolean).map((m) => m[1] + (m[1] === 'rxjs' && m[2] === 'dist/cjs/index.js' ? ' index' : '')));
console.log(JSON.stringify({ packages: [...packages].sort(), http: process.moduleLoadList.includes('NativeModule http') }));
await wardrik.close();
`,
  );
  return JSON.parse(execFileSync(process.execPath, [script]).toString()) as {
    packages: string[];
    http: boolean;
  };
}

describe('Start-up loads what the served tools use', () => {
  it("serves JSON Schema tools without class-validator, rxjs's index or node:http", () => {
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
    ])
      assert.ok(!loaded.packages.includes(heavy), `${heavy} was loaded: ${loaded.packages.join(', ')}`);
    assert.ok(loaded.packages.includes('rxjs'), loaded.packages.join(', '));
    assert.equal(loaded.http, false);
  });

  it('loads class-validator-jsonschema for a toolset class with DTOs', () => {
    const loaded = loadedAfterServing(
      'toolsets: [OrderTools]',
      `import { OrderTools } from ${JSON.stringify(ORDERS)};`,
    );
    assert.ok(loaded.packages.includes('class-validator-jsonschema'), loaded.packages.join(', '));
    assert.ok(loaded.packages.includes('class-validator'), loaded.packages.join(', '));
  });
});
