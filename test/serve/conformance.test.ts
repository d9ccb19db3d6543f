import 'reflect-metadata';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../eventually.js';

/** The server scenarios issue 16 requires to pass. */
const REQUIRED = [
  'server-initialize',
  'ping',
  'tools-list',
  'tools-call-simple-text',
  'tools-call-image',
  'tools-call-mixed-content',
  'tools-call-error',
  'tools-call-with-progress',
  'tools-call-with-logging',
  'json-schema-2020-12',
  'server-sse-multiple-streams',
  'dns-rebinding-protection',
];

/** Others that pass too. (Sampling, elicitation, resources, prompts and completion are not served.) */
const ALSO = ['tools-call-audio', 'tools-call-embedded-resource', 'logging-set-level'];

const SERVER = fileURLToPath(new URL('../../examples/serve/conformance-server.js', import.meta.url));
const HOOK = fileURLToPath(new URL('./conformance/register.js', import.meta.url));
const SUITE = join(
  dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/package.json')),
  'dist',
  'index.js',
);

/** Runs one scenario (one at a time: the suite's scenarios share nothing but the server). */
function scenario(url: string, name: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', HOOK, SUITE, 'server', '--url', url, '--scenario', name], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out }));
  });
}

describe('MCP conformance (server scenarios of @modelcontextprotocol/conformance 0.1.16)', () => {
  let server: ReturnType<typeof spawn>;
  let url = '';
  before(async () => {
    server = spawn(process.execPath, [SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
    server.stdout!.on('data', (chunk: Buffer) => (url += chunk.toString()));
    await eventually("url.endsWith('\\n')", () => url.endsWith('\n'));
    url = url.trim();
  });
  after(() => {
    server.kill('SIGKILL');
  });

  for (const name of [...REQUIRED, ...ALSO]) {
    it(`passes ${name}`, async () => {
      const { code, out } = await scenario(url, name);
      const summary = /Passed: (\d+)\/(\d+), (\d+) failed/.exec(out);
      assert.ok(summary !== null, `no summary from the suite:\n${out}`);
      assert.equal(summary[3], '0', out);
      assert.equal(summary[1], summary[2], out);
      assert.ok(Number(summary[2]) > 0, out);
      assert.equal(code, 0, out);
    });
  }
});
