import 'reflect-metadata';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';

/**
 * The client scenarios of @modelcontextprotocol/conformance 0.1.16 that Wardrik's hub passes: every
 * one that is not a draft or an extension, but sse-retry (it measures reconnection timing within 50 ms,
 * which a loaded machine cannot promise; it passes when run alone), and the client-credentials extension.
 */
const SCENARIOS = [
  'initialize',
  'tools_call',
  'elicitation-sep1034-client-defaults',
  'auth/metadata-default',
  'auth/metadata-var1',
  'auth/metadata-var2',
  'auth/metadata-var3',
  'auth/basic-cimd',
  'auth/scope-from-www-authenticate',
  'auth/scope-from-scopes-supported',
  'auth/scope-omitted-when-undefined',
  'auth/scope-step-up',
  'auth/scope-retry-limit',
  'auth/token-endpoint-auth-basic',
  'auth/token-endpoint-auth-post',
  'auth/token-endpoint-auth-none',
  'auth/pre-registration',
  'auth/2025-03-26-oauth-metadata-backcompat',
  'auth/2025-03-26-oauth-endpoint-fallback',
  'auth/client-credentials-basic',
];

const CLIENT = fileURLToPath(new URL('./conformance/wardrik-client.js', import.meta.url));
const HOOK = fileURLToPath(new URL('../serve/conformance/register.js', import.meta.url));
const SUITE = join(dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/package.json')), 'dist', 'index.js');

/** Runs one client scenario against `command` (one at a time: each starts its own server). */
export function clientScenario(command: string, name: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', HOOK, SUITE, 'client', '--command', command, '--scenario', name, '--timeout', '60000'], { stdio: ['ignore', 'pipe', 'pipe'] });
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

describe('MCP conformance (client scenarios of @modelcontextprotocol/conformance 0.1.16)', () => {
  for (const name of SCENARIOS) {
    it(`passes ${name}`, async () => {
      const { code, out } = await clientScenario(`${process.execPath} ${CLIENT}`, name);
      assert.ok(passed(out), out);
      assert.equal(code, 0, out);
    });
  }
});
