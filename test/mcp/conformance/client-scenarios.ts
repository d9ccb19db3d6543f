// Runs the conformance suite's client scenarios against Wardrik's hub (wardrik-client.ts), one at a time.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { it } from 'node:test';

const CLIENT = fileURLToPath(new URL('./wardrik-client.js', import.meta.url));
const HOOK = fileURLToPath(new URL('../../serve/conformance/register.js', import.meta.url));
const SUITE = join(
  dirname(createRequire(import.meta.url).resolve('conformance-next/package.json')),
  'dist',
  'index.js',
);

/** Runs one client scenario against `command` (one at a time: each starts its own server). */
export function clientScenario(command: string, name: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', HOOK, SUITE, 'client', '--command', command, '--scenario', name, '--timeout', '60000'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out }));
  });
}

/** Whether the suite's summary says every check passed. */
export function passed(out: string): boolean {
  const summary = /Passed: (\d+)\/(\d+), (\d+) failed/.exec(out);
  return summary !== null && summary[3] === '0' && summary[1] === summary[2] && Number(summary[2]) > 0;
}

/** Runs `scenarios` (a file's share: each takes up to half a minute on a loaded machine). */
export function clientScenarios(scenarios: readonly string[]): void {
  for (const name of scenarios) {
    it(`passes ${name}`, async () => {
      const { code, out } = await clientScenario(`${process.execPath} ${CLIENT}`, name);
      assert.ok(passed(out), out);
      assert.equal(code, 0, out);
    });
  }
}
