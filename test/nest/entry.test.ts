import 'reflect-metadata';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';

const run = promisify(execFile);
const main = new URL('../../src/index.js', import.meta.url).href;
const nest = new URL('../../src/nest/index.js', import.meta.url).href;

/** Imports `entry` in a fresh process that refuses to load any @nestjs package; prints whether it loaded. */
async function importWithoutNest(entry: string): Promise<string> {
  const script =
    "import { registerHooks } from 'node:module';" +
    'registerHooks({ resolve(specifier, context, next) {' +
    "  if (specifier.startsWith('@nestjs/')) throw new Error('loaded ' + specifier);" +
    '  return next(specifier, context);' +
    '} });' +
    `try { await import(${JSON.stringify(entry)}); console.log('loaded'); } catch (error) { console.log(error.message); }`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script]);
  return stdout.trim();
}

describe('wardrik/nest', () => {
  it('is the only entry that loads NestJS: wardrik loads without it', async () => {
    assert.equal(await importWithoutNest(main), 'loaded');
    assert.match(await importWithoutNest(nest), /^loaded @nestjs\//);
  });

  it('exports exactly these names', async () => {
    const exported = Object.keys((await import('../../src/nest/index.js')) as object).sort();
    assert.deepEqual(exported, [
      'WARDRIK_INBOX',
      'WARDRIK_MCP_SERVER',
      'WARDRIK_MODULE_OPTIONS',
      'WardrikModule',
      'defaultPrincipal',
    ]);
  });
});
