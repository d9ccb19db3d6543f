// A tool call to Wardrik's MCP server (`wardrik.mcpServer`: session, runner — resolve, check, decide,
// journal, run, journal — and the result with its labels) against the same tool served by the MCP
// SDK's own McpServer, from the SDK's Client, over stdio and Streamable HTTP, one call at a time and 32
// at once (issue 16 targets: ≤ 1.10x the SDK's time one at a time, ≥ 0.9 of its throughput at 32).
// Each server runs in its own process (bench/serve-server.ts); as in mcp.bench.ts, each comparison is
// made on several fresh pairs of server processes and the target is held to the median pair.
import 'reflect-metadata';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { countListenerWarnings, measureInTurns, reportPairs, type PairResult } from './lib.js';

const listenerWarnings = countListenerWarnings();

const SERVER = fileURLToPath(new URL('./serve-server.js', import.meta.url));
const CONCURRENCY = 32;

/** A client connected to a fresh server process of `which` kind. */
async function connect(which: 'sdk' | 'wardrik', kind: 'stdio' | 'http'): Promise<{ client: Client; close: () => Promise<void> }> {
  const client = new Client({ name: 'bench', version: '1.0.0' });
  if (kind === 'stdio') {
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [SERVER, which, kind] }));
    return { client, close: () => client.close() };
  }
  const child: ChildProcess = spawn(process.execPath, [SERVER, which, kind], { stdio: ['pipe', 'pipe', 'inherit'] });
  const [port] = (await once(child.stdout!, 'data')) as [Buffer];
  await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port.toString().trim()}/mcp`)));
  return {
    client,
    close: async () => {
      await client.close();
      child.stdin!.end();
      await once(child, 'exit');
    },
  };
}

async function measurePair(kind: 'stdio' | 'http'): Promise<PairResult> {
  const sdk = await connect('sdk', kind);
  const ours = await connect('wardrik', kind);
  const call = (client: Client) => () =>
    client.callTool({ name: 'echo', arguments: { text: 'hello' } }).then((result) => {
      if (result.isError === true) throw new Error(JSON.stringify(result));
    });
  const batch = (op: () => Promise<unknown>) => () => Promise.all(Array.from({ length: CONCURRENCY }, op));
  const one = await measureInTurns(
    [
      { name: `SDK McpServer, ${kind}, 1 at a time`, op: call(sdk.client) },
      { name: `wardrik.mcpServer, ${kind}, 1 at a time`, op: call(ours.client) },
    ],
    { rounds: 11, perRound: kind === 'stdio' ? 200 : 100 },
  );
  const many = await measureInTurns(
    [
      { name: `SDK McpServer, ${kind}, ${CONCURRENCY} at once`, op: batch(call(sdk.client)) },
      { name: `wardrik.mcpServer, ${kind}, ${CONCURRENCY} at once`, op: batch(call(ours.client)) },
    ],
    { rounds: 11, perRound: kind === 'stdio' ? 40 : 10 },
  );
  await sdk.close();
  await ours.close();
  return { one, many };
}

for (const [kind, pairs] of [
  ['stdio', 5],
  ['http', 3],
] as const) {
  const results: PairResult[] = [];
  for (let pair = 0; pair < pairs; pair++) results.push(await measurePair(kind));
  reportPairs(`Served over ${kind}`, results, { target: 1.1, concurrency: CONCURRENCY, baseline: "the SDK's" });
}
listenerWarnings.printCount();
