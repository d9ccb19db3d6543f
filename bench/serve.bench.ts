// A tool call to Wardrik's MCP server (`wardrik.mcpServer`: session, runner — resolve, check, decide,
// journal, run, journal — and the result with its labels) against the same tool served by the MCP
// SDK's own McpServer, from the SDK's Client, over stdio and Streamable HTTP, one call at a time and 32
// at once (targets: ≤ 1.10x the SDK's time one at a time, ≥ 0.9 of its throughput at 32).
// Each server runs in its own process (bench/serve-server.ts); as in mcp.bench.ts, each comparison is
// made on several fresh pairs of server processes and the target is held to the median pair. Over stdio
// each side uses its own transport, as its users get it: the SDK's StdioServerTransport for McpServer,
// Wardrik's for `connect()` and `wardrik serve --stdio`; a third row, for reference, is Wardrik's server
// over the SDK's transport. Each row also gives the server process's CPU time per call (all its
// threads, from /proc): it moves far less than the time when other work shares the machine.
import 'reflect-metadata';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { countListenerWarnings, measureInTurns, median, reportPairs, type PairResult } from './lib.js';

const listenerWarnings = countListenerWarnings();

const SERVER = fileURLToPath(new URL('./serve-server.js', import.meta.url));
const CONCURRENCY = 32;

type Which = 'sdk' | 'wardrik' | 'wardrik-sdk-stdio';
const NAMES: Record<Which, string> = {
  sdk: 'SDK McpServer',
  wardrik: 'wardrik.mcpServer',
  'wardrik-sdk-stdio': "wardrik.mcpServer on the SDK's stdio transport",
};

/** A client connected to a fresh server process of `which` kind. */
async function connect(
  which: Which,
  kind: 'stdio' | 'http',
): Promise<{ client: Client; pid: number | undefined; close: () => Promise<void> }> {
  const client = new Client({ name: 'bench', version: '1.0.0' });
  if (kind === 'stdio') {
    const transport = new StdioClientTransport({ command: process.execPath, args: [SERVER, which, kind] });
    await client.connect(transport);
    return { client, pid: transport.pid ?? undefined, close: () => client.close() };
  }
  const child: ChildProcess = spawn(process.execPath, [SERVER, which, kind], { stdio: ['pipe', 'pipe', 'inherit'] });
  const [port] = (await once(child.stdout!, 'data')) as [Buffer];
  await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port.toString().trim()}/mcp`)));
  return {
    client,
    pid: child.pid,
    close: async () => {
      await client.close();
      child.stdin!.end();
      await once(child, 'exit');
    },
  };
}

/** Nanoseconds a process has run on a CPU, all its threads (GC's included); undefined without Linux's /proc. */
function cpuNs(pid: number | undefined): number | undefined {
  try {
    return readdirSync(`/proc/${pid}/task`).reduce(
      (sum, task) => sum + Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]),
      0,
    );
  } catch {
    return undefined;
  }
}

/** One server process of a pair, its client, and how many calls were made to it. */
interface Side {
  readonly which: Which;
  readonly client: Client;
  readonly pid: number | undefined;
  readonly close: () => Promise<void>;
  calls: number;
}

/** Each side's server CPU time per call, in µs, for one pair: one call at a time, then 32 at once. */
type CpuPerCall = { one: number[]; many: number[] };

async function measurePair(kind: 'stdio' | 'http', cpu: CpuPerCall[]): Promise<PairResult> {
  const whiches: Which[] = kind === 'stdio' ? ['sdk', 'wardrik', 'wardrik-sdk-stdio'] : ['sdk', 'wardrik'];
  const sides: Side[] = [];
  for (const which of whiches) sides.push({ which, ...(await connect(which, kind)), calls: 0 });
  const call = (side: Side) => () => {
    side.calls++;
    return side.client.callTool({ name: 'echo', arguments: { text: 'hello' } }).then((result) => {
      if (result.isError === true) throw new Error(JSON.stringify(result));
    });
  };
  const batch = (op: () => Promise<unknown>) => () => Promise.all(Array.from({ length: CONCURRENCY }, op));
  /** Runs `measure`, giving each side's server CPU per call over it (warm-up included). */
  const withCpu = async <T>(measure: () => Promise<T>): Promise<[T, number[]]> => {
    const before = sides.map((side) => [cpuNs(side.pid), side.calls] as const);
    const result = await measure();
    return [
      result,
      sides.map((side, i) => ((cpuNs(side.pid) ?? NaN) - (before[i]![0] ?? NaN)) / 1000 / (side.calls - before[i]![1])),
    ];
  };
  const [one, cpuOne] = await withCpu(() =>
    measureInTurns(
      sides.map((side) => ({ name: `${NAMES[side.which]}, ${kind}, 1 at a time`, op: call(side) })),
      { rounds: 11, perRound: kind === 'stdio' ? 200 : 100 },
    ),
  );
  const [many, cpuMany] = await withCpu(() =>
    measureInTurns(
      sides.map((side) => ({ name: `${NAMES[side.which]}, ${kind}, ${CONCURRENCY} at once`, op: batch(call(side)) })),
      { rounds: 11, perRound: kind === 'stdio' ? 40 : 10 },
    ),
  );
  for (const side of sides) await side.close();
  cpu.push({ one: cpuOne, many: cpuMany });
  return { one, many };
}

/** Prints each side's median server CPU per call over the pairs, and its ratio to the SDK's. */
function reportCpu(kind: 'stdio' | 'http', cpu: readonly CpuPerCall[]): void {
  if (cpu.some((pair) => pair.one.some(Number.isNaN))) return;
  for (const phase of ['one', 'many'] as const) {
    const medians = cpu[0]![phase].map((_, side) => median(cpu.map((pair) => pair[phase][side]!)));
    const label = phase === 'one' ? '1 at a time' : `${CONCURRENCY} at once`;
    const whiches: Which[] = ['sdk', 'wardrik', 'wardrik-sdk-stdio'];
    console.log(
      `  server CPU per call, ${kind}, ${label} (median of pairs): ${medians.map((us, side) => `${NAMES[whiches[side]!]} ${us.toFixed(1)} µs (${(us / medians[0]!).toFixed(2)}x)`).join(', ')}`,
    );
  }
}

for (const [kind, pairs] of [
  ['stdio', 7],
  ['http', 5],
] as const) {
  const results: PairResult[] = [];
  const cpu: CpuPerCall[] = [];
  for (let pair = 0; pair < pairs; pair++) results.push(await measurePair(kind, cpu));
  reportPairs(`Served over ${kind}`, results, { target: 1.1, concurrency: CONCURRENCY, baseline: "the SDK's" });
  reportCpu(kind, cpu);
}
listenerWarnings.printCount();
