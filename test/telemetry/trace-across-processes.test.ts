import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';

const PROCESS = fileURLToPath(new URL('./fixtures/traced-process.js', import.meta.url));
const SERVER = 1; // SpanKind.SERVER

interface WrittenSpan {
  readonly name: string;
  readonly kind: number;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly parentIsRemote?: boolean;
  readonly attributes: Record<string, unknown>;
}

function spansIn(file: string): WrittenSpan[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as WrittenSpan);
}

function only(spans: readonly WrittenSpan[], name: string): WrittenSpan {
  const found = spans.filter((span) => span.name === name);
  assert.equal(found.length, 1, `one span ${name}; spans: ${spans.map((span) => span.name).join(', ')}`);
  return found[0]!;
}

/** Runs the fixture; resolves with the child and the first line it prints. */
async function start(args: readonly string[]): Promise<{ child: ChildProcess; line: Promise<string> }> {
  const child = spawn(process.execPath, [PROCESS, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  const line = new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`${args[0]} exited (${code}) before printing`)));
  });
  return { child, line };
}

describe('One trace across two Wardrik processes, through MCP', () => {
  it("runs agent → execute_tool → (hub) → the server's execute_tool → the tool, each span the child of the one before", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wardrik-trace-'));
    const serverFile = join(dir, 'server.jsonl');
    const agentFile = join(dir, 'agent.jsonl');
    const server = await start(['serve', serverFile]);
    try {
      const url = await server.line;
      const agent = await start(['agent', agentFile, url]);
      const reply = JSON.parse(await agent.line) as { text?: string };
      assert.equal(reply.text, '[scripted] Shipped.');
      const [code] = (await once(agent.child, 'exit')) as [number | null];
      assert.equal(code, 0);
    } finally {
      server.child.kill('SIGTERM');
      if (server.child.exitCode === null) await once(server.child, 'exit');
    }

    const agentSpans = spansIn(agentFile);
    const serverSpans = spansIn(serverFile);
    const turn = only(agentSpans, 'invoke_agent tracer');
    const call = only(agentSpans, 'execute_tool s__orders__find_order');
    const served = only(serverSpans, 'execute_tool orders__find_order');
    const tool = only(serverSpans, 'lookup order');

    // One trace id end to end, every span the child of the one before, across the process boundary.
    for (const span of [call, served, tool]) assert.equal(span.traceId, turn.traceId, span.name);
    assert.equal(call.parentSpanId, turn.spanId);
    assert.equal(served.parentSpanId, call.spanId);
    assert.equal(served.parentIsRemote, true);
    assert.equal(served.kind, SERVER);
    assert.equal(tool.parentSpanId, served.spanId);
    assert.notEqual(tool.parentIsRemote, true);

    // The MCP conventions' attributes on both sides of the hop.
    const port = Number(new URL(await server.line).port);
    assert.deepEqual(pick(call.attributes, 'gen_ai.tool.type', 'mcp.method.name', 'mcp.protocol.version'), {
      'gen_ai.tool.type': 'extension',
      'mcp.method.name': 'tools/call',
      'mcp.protocol.version': '2026-07-28',
    });
    assert.deepEqual(
      pick(call.attributes, 'network.transport', 'server.address', 'server.port', 'wardrik.mcp.server'),
      {
        'network.transport': 'tcp',
        'server.address': '127.0.0.1',
        'server.port': port,
        'wardrik.mcp.server': 's',
      },
    );
    assert.equal(call.attributes['wardrik.tool.status'], 'ok', 'the served tool answered');
    assert.equal(typeof call.attributes['jsonrpc.request.id'], 'string');
    assert.deepEqual(
      pick(served.attributes, 'gen_ai.tool.type', 'mcp.method.name', 'mcp.protocol.version', 'network.transport'),
      {
        'gen_ai.tool.type': 'function',
        'mcp.method.name': 'tools/call',
        'mcp.protocol.version': '2026-07-28',
        'network.transport': 'tcp',
      },
    );
    assert.equal(served.attributes['jsonrpc.request.id'], call.attributes['jsonrpc.request.id']);
  });
});

function pick(attributes: Record<string, unknown>, ...keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.map((key) => [key, attributes[key]]));
}
