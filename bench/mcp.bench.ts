// MCP calls through Wardrik (`wardrik.runner.run`: resolve, check arguments against the server's JSON
// Schema, decide, journal, call, journal) against a raw SDK v2 `client.callTool` to the same server, over
// stdio and Streamable HTTP, one call at a time and 32 at once (issue 6 targets: ≤ 1.10x raw over
// stdio, ≤ 1.05x over HTTP, ≥ 0.9 of raw throughput at 32). Memory store; the servers are the test
// fixture, each in its own process.
//
// Over stdio, raw and ours each talk to a server process of their own, and one process of the same
// program can run 10% slower than another for its whole life, which moves a ratio as much as the runner
// does. So each comparison is made on several fresh pairs of connections (over stdio, of server
// processes), every pair is printed, and the target is held to the median pair.
import 'reflect-metadata';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Wardrik, type McpTransportOptions } from '../src/index.js';
import { CallContext } from '../src/runner/call-context.js';
import { countListenerWarnings, measureInTurns, reportPairs, type PairResult } from './lib.js';

const listenerWarnings = countListenerWarnings();

const stdioServer = fileURLToPath(new URL('../test/mcp/fixtures/stdio-server.js', import.meta.url));
const httpServer = fileURLToPath(new URL('../test/mcp/fixtures/http-server.js', import.meta.url));
const CONCURRENCY = 32;

// The HTTP fixture in its own process, as a remote server would be.
const httpChild = spawn(process.execPath, [httpServer], { stdio: ['pipe', 'pipe', 'inherit'] });
const [portLine] = (await once(httpChild.stdout!, 'data')) as [Buffer];
const url = `http://127.0.0.1:${portLine.toString().trim()}/mcp`;

const transports: Record<'stdio' | 'http', McpTransportOptions> = {
  stdio: { stdio: { command: process.execPath, args: [stdioServer] } },
  http: { http: { url } },
};

async function rawClient(kind: 'stdio' | 'http'): Promise<Client> {
  const client = new Client({ name: 'raw', version: '1.0.0' });
  await client.connect(
    kind === 'stdio'
      ? new StdioClientTransport({ command: process.execPath, args: [stdioServer] })
      : new StreamableHTTPClientTransport(new URL(url)),
  );
  return client;
}

// A pair's timings (PairResult), one call at a time and 32 at once, are each [raw, ours, hub without the runner].

let id = 0;
/** Measures one pair: a fresh hub connection (its own stdio child, or its own HTTP session) and a fresh raw client. */
async function measurePair(kind: 'stdio' | 'http'): Promise<PairResult> {
  const wardrik = await Wardrik.create({
    store: 'memory:',
    recoverMs: Infinity,
    mcp: { servers: { s: { transport: transports[kind] } }, reconcileMs: Infinity },
  });
  if (
    wardrik
      .mcp()
      .status()
      .some((server) => server.state !== 'connected')
  )
    throw new Error(`server not connected: ${JSON.stringify(wardrik.mcp().status())}`);
  const client = await rawClient(kind);
  const tool = wardrik
    .mcp()
    .tools({}, { servers: 's' })
    .find((entry) => entry.name === 's__echo')!.tool;
  const ours = () =>
    wardrik.runner
      .run({ agent: 'bench', run: 'bench', call: { id: `c${id++}`, name: 's__echo', arguments: { text: 'hello' } } })
      .then((answer) => {
        if (answer.status !== 'ok') throw new Error(JSON.stringify(answer));
      });
  const raw = () => client.callTool({ name: 'echo', arguments: { text: 'hello' } });
  // The hub's tool alone, without the runner (given an attempt's context, as the runner gives it): how
  // much of the difference is the MCP layer's.
  const bare = () =>
    tool.run({ text: 'hello' }, new CallContext('bench', 'bench', 'c', 1, 'bench:c', [])) as Promise<unknown>;
  const batch = (op: () => Promise<unknown>) => () => Promise.all(Array.from({ length: CONCURRENCY }, op));
  const one = await measureInTurns(
    [
      { name: `raw SDK client.callTool, ${kind}, 1 at a time`, op: raw },
      { name: `wardrik.runner.run, ${kind}, 1 at a time`, op: ours },
      { name: `(hub tool.run without the runner, ${kind})`, op: bare },
    ],
    { rounds: 11, perRound: kind === 'stdio' ? 200 : 100 },
  );
  const many = await measureInTurns(
    [
      { name: `raw SDK client.callTool, ${kind}, ${CONCURRENCY} at once`, op: batch(raw) },
      { name: `wardrik.runner.run, ${kind}, ${CONCURRENCY} at once`, op: batch(ours) },
      { name: `(hub tool.run without the runner, ${kind}, ${CONCURRENCY} at once)`, op: batch(bare) },
    ],
    { rounds: 11, perRound: kind === 'stdio' ? 60 : 10 },
  );
  await client.close();
  await wardrik.close();
  return { one, many };
}

for (const [kind, target, pairs] of [
  ['stdio', 1.1, 5],
  ['http', 1.05, 3],
] as const) {
  const results: PairResult[] = [];
  for (let pair = 0; pair < pairs; pair++) results.push(await measurePair(kind));
  reportPairs(`MCP over ${kind}`, results, {
    target,
    concurrency: CONCURRENCY,
    baseline: 'raw',
    eachOne: ({ one }) =>
      `${(one[1]!.ns / one[0]!.ns).toFixed(2)}x (without the runner ${(one[2]!.ns / one[0]!.ns).toFixed(2)}x)`,
    eachMany: ({ many }) =>
      `${(many[0]!.ns / many[1]!.ns).toFixed(2)} of raw (without the runner ${(many[0]!.ns / many[2]!.ns).toFixed(2)})`,
  });
}
listenerWarnings.printCount();

httpChild.stdin!.end();
await once(httpChild, 'exit');
