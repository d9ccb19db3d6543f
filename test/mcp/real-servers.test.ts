// The hub against MCP servers nobody here wrote: the reference servers of the MCP project (everything,
// filesystem, memory), run as their users run them, over stdio and Streamable HTTP.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { McpTransportOptions } from '../../src/index.js';
import { harness, type Harness } from './helpers.js';

const require = createRequire(import.meta.url);
const serverPath = (name: string): string => require.resolve(`@modelcontextprotocol/server-${name}/dist/index.js`);
const stdio = (name: string, args: readonly string[] = [], env: Record<string, string> = {}): McpTransportOptions => ({
  stdio: { command: process.execPath, args: [serverPath(name), ...args], env },
});

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

describe('the reference MCP servers', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wardrik-real-mcp-'));
  const files = join(dir, 'files');
  let h: Harness;
  let httpServer: ChildProcess;

  before(async () => {
    mkdirSync(files);
    writeFileSync(join(files, 'notes.txt'), 'first line\nsecond line\n');
    // The everything server over Streamable HTTP, in its own process as a remote server would be.
    const port = await freePort();
    httpServer = spawn(process.execPath, [serverPath('everything'), 'streamableHttp'], {
      env: { ...process.env, PORT: String(port) },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    httpServer.stderr!.setEncoding('utf8');
    await new Promise<void>((resolve, reject) => {
      httpServer.stderr!.on('data', (chunk: string) => {
        stderr += chunk;
        if (stderr.includes(`port ${port}`)) resolve();
      });
      httpServer.once('exit', (code) => reject(new Error(`the everything server exited (${String(code)}): ${stderr}`)));
    });
    h = await harness(
      {
        servers: {
          everything: { transport: stdio('everything', ['stdio']) },
          files: { transport: stdio('filesystem', [files]) },
          memory: { transport: stdio('memory', [], { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') }) },
          remote: { transport: { http: { url: `http://127.0.0.1:${port}/mcp` } } },
        },
      },
      { runner: { retry: { attempts: 2 } } },
    );
  });

  after(async () => {
    await h?.close();
    httpServer?.kill('SIGTERM');
    if (httpServer?.exitCode === null) await once(httpServer, 'exit');
    rmSync(dir, { recursive: true, force: true });
  });

  it('connects to each and offers its tools, hints turned into annotations', () => {
    assert.deepEqual(
      h
        .hub()
        .status()
        .map((server) => [server.name, server.state]),
      [
        ['everything', 'connected'],
        ['files', 'connected'],
        ['memory', 'connected'],
        ['remote', 'connected'],
      ],
    );
    const annotations = (name: string) =>
      h
        .hub()
        .tools({}, { servers: name.split('__')[0]! })
        .find((entry) => entry.name === name)?.tool.annotations;
    assert.deepEqual(
      { ...annotations('files__read_text_file') },
      { readOnly: true, idempotent: true, openWorld: false, gated: false, labels: ['outside'] },
    );
    assert.equal(annotations('files__write_file')?.gated, true);
    assert.equal(annotations('files__write_file')?.destructive, true);
    assert.equal(annotations('memory__create_entities')?.gated, true);
    assert.equal(annotations('everything__get-sum')?.readOnly, true);
    assert.equal(annotations('remote__echo')?.readOnly, true);
  });

  it('runs read-only tools at once and labels their answers outside', async () => {
    const read = await h.call('files__read_text_file', { path: join(files, 'notes.txt') });
    assert.equal(read.status, 'ok');
    assert.match(JSON.stringify(read.status === 'ok' && read.output), /first line\\nsecond line/);
    assert.deepEqual(read.labels, ['outside']);
    const sum = await h.call('everything__get-sum', { a: 19, b: 23 });
    assert.equal(sum.status === 'ok' && sum.output, 'The sum of 19 and 23 is 42.');
    const echo = await h.call('remote__echo', { message: 'over HTTP' });
    assert.equal(echo.status === 'ok' && echo.output, 'Echo: over HTTP');
  });

  it('answers arguments the server would refuse without sending them', async () => {
    const answer = await h.call('everything__get-sum', { a: 'nineteen', b: 23 });
    assert.equal(answer.status === 'error' && answer.code, 'invalid_arguments');
    assert.match(answer.status === 'error' ? answer.message : '', /- a: must be number/);
  });

  it("passes a tool's own error to the model and does not retry it", async () => {
    const outside = await h.call('files__read_text_file', { path: '/etc/hostname' });
    assert.equal(outside.status === 'error' && outside.code, 'failed');
    assert.match(outside.status === 'error' ? outside.message : '', /denied|outside allowed directories/i);
    assert.equal(h.events.filter((event) => event.type === 'tool.retrying').length, 0);
  });

  it('parks a write for a person, and runs it once when approved', async () => {
    const target = join(files, 'approved.txt');
    const parked = await h.call('files__write_file', { path: target, content: 'written after approval' });
    assert.equal(parked.status, 'parked');
    assert.throws(() => readFileSync(target), /ENOENT/);
    const item = (await h.wardrik.inbox.list()).find((candidate) => candidate.tool === 'files/write_file')!;
    const answer = await h.wardrik.inbox.approve(item.id, { by: 'test' });
    assert.equal(answer.status, 'ok');
    assert.equal(readFileSync(target, 'utf8'), 'written after approval');
  });

  it('keeps what an approved memory write stored, for a later read', async () => {
    const parked = await h.call('memory__create_entities', {
      entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote the first program'] }],
    });
    assert.equal(parked.status, 'parked');
    const item = (await h.wardrik.inbox.list()).find((candidate) => candidate.tool === 'memory/create_entities')!;
    assert.equal((await h.wardrik.inbox.approve(item.id)).status, 'ok');
    const graph = await h.call('memory__read_graph', {});
    assert.match(JSON.stringify(graph.status === 'ok' && graph.output), /"name":"Ada".*wrote the first program/);
  });

  it('stops a long operation when the caller does, and the server goes on serving', async () => {
    const slow = await h.call(
      'everything__trigger-long-running-operation',
      { duration: 30, steps: 3 },
      { signal: AbortSignal.timeout(300) },
    );
    assert.equal(slow.status === 'error' && slow.code, 'aborted');
    const after = await h.call('everything__echo', { message: 'still here' });
    assert.equal(after.status === 'ok' && after.output, 'Echo: still here');
  });
});
