// MCP calls through Wardrik (`wardrik.runner.run`: resolve, check arguments against the server's JSON
// Schema, decide, journal, call, journal) against a raw SDK `client.callTool` to the same server, over
// stdio and Streamable HTTP, one call at a time and 32 at once (issue 6 targets: ≤ 1.10x raw over
// stdio, ≤ 1.05x over HTTP, ≥ 0.9 of raw throughput at 32). Memory store; the servers are the test
// fixture, each in its own process.
import 'reflect-metadata';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Wardrik, type McpTransportOptions } from '../src/index.js';
import { CallContext } from '../src/runner/call-context.js';
import { format, measureInTurns, report, type Timing } from './lib.js';

// The SDK's HTTP client transport gives every request the same AbortSignal and undici adds a listener
// per request, so 32 concurrent calls trip Node's listener warning (raw and ours alike). Counted, not printed.
let listenerWarnings = 0;
process.removeAllListeners('warning');
process.on('warning', (warning) => {
  if (warning.name === 'MaxListenersExceededWarning') listenerWarnings++;
  else console.warn(warning);
});

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

const wardrik = await Wardrik.create({
  store: 'memory:',
  recoverMs: Infinity,
  mcp: { servers: { s: { transport: transports.stdio }, h: { transport: transports.http } }, reconcileMs: Infinity },
});
if (wardrik.mcp().status().some((server) => server.state !== 'connected')) throw new Error(`servers not connected: ${JSON.stringify(wardrik.mcp().status())}`);

async function rawClient(kind: 'stdio' | 'http'): Promise<Client> {
  const client = new Client({ name: 'raw', version: '1.0.0' });
  await client.connect(kind === 'stdio' ? new StdioClientTransport({ command: process.execPath, args: [stdioServer] }) : new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

let id = 0;
const ours = (server: 's' | 'h') => () =>
  wardrik.runner.run({ agent: 'bench', run: 'bench', call: { id: `c${id++}`, name: `${server}__echo`, arguments: { text: 'hello' } } }).then((answer) => {
    if (answer.status !== 'ok') throw new Error(JSON.stringify(answer));
  });
const raw = (client: Client) => () => client.callTool({ name: 'echo', arguments: { text: 'hello' } });
const batch = (op: () => Promise<unknown>) => () => Promise.all(Array.from({ length: CONCURRENCY }, op));

const throughput = (timing: Timing): string => `${Math.round((CONCURRENCY * 1e9) / timing.ns)} calls/s`;

for (const [kind, server, target] of [
  ['stdio', 's', 1.1],
  ['http', 'h', 1.05],
] as const) {
  const client = await rawClient(kind);
  const tool = wardrik.mcp().tools({}, { servers: server }).find((entry) => entry.name === `${server}__echo`)!.tool;
  // The hub's tool alone, without the runner (given an attempt's context, as the runner gives it): how
  // much of the difference is the MCP layer's.
  const bare = () => tool.run({ text: 'hello' }, new CallContext('bench', 'bench', 'c', 1, 'bench:c', [])) as Promise<unknown>;
  const [rawOne, oursOne, bareOne] = await measureInTurns(
    [
      { name: `raw SDK client.callTool, ${kind}, 1 at a time`, op: raw(client) },
      { name: `wardrik.runner.run, ${kind}, 1 at a time`, op: ours(server) },
      { name: `(hub tool.run without the runner, ${kind})`, op: bare },
    ],
    { rounds: 21, perRound: kind === 'stdio' ? 200 : 100 },
  );
  report(`MCP over ${kind}, one call at a time`, rawOne!, [{ timing: oursOne!, target }, { timing: bareOne! }]);
  const [rawMany, oursMany, bareMany] = await measureInTurns(
    [
      { name: `raw SDK client.callTool, ${kind}, ${CONCURRENCY} at once`, op: batch(raw(client)) },
      { name: `wardrik.runner.run, ${kind}, ${CONCURRENCY} at once`, op: batch(ours(server)) },
      { name: `(hub tool.run without the runner, ${kind}, ${CONCURRENCY} at once)`, op: batch(bare) },
    ],
    { rounds: 21, perRound: kind === 'stdio' ? 60 : 10 },
  );
  report(`MCP over ${kind}, ${CONCURRENCY} calls at once (time per batch)`, rawMany!, [{ timing: oursMany!, target: 1.11 }, { timing: bareMany! }]);
  const share = rawMany!.ns / oursMany!.ns;
  console.log(
    `  throughput at ${CONCURRENCY}: raw ${throughput(rawMany!)}, ours ${throughput(oursMany!)} = ${share.toFixed(2)} of raw  target ≥ 0.9: ${share >= 0.9 ? 'met' : 'MISSED'}` +
      ` (${format(oursMany!.ns / CONCURRENCY)} per call; without the runner ${(rawMany!.ns / bareMany!.ns).toFixed(2)} of raw)`,
  );
  await client.close();
}
if (listenerWarnings > 0) console.log(`\n  (${listenerWarnings} MaxListenersExceeded warnings from the SDK's HTTP client transport, counted and not printed)`);

await wardrik.close();
httpChild.stdin!.end();
await once(httpChild, 'exit');
