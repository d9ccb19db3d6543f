// A tool call to Wardrik's MCP server (`wardrik.mcpServer`: session, runner — resolve, check, decide,
// journal, run, journal — and the result with its labels) against the same tool served by the MCP
// SDK v2's own McpServer, over stdio and Streamable HTTP, in both protocol eras (a 2025-11-25 client,
// SDK v1's Client; a 2026-07-28 one, SDK v2's Client pinned to it), one call at a time and 32 at once
// (targets: ≤ 1.10x the SDK's time one at a time, ≥ 0.9 of its throughput at 32). SDK v1's McpServer,
// which 2025 servers still run and Wardrik's sessions built on before, is a third row for reference.
// Each server runs in its own process (bench/serve-server.ts); as in mcp.bench.ts, each comparison is
// made on several fresh pairs of server processes and the target is held to the median pair. Over stdio
// each side uses its own transport, as its users get it: the SDK's StdioServerTransport for McpServer,
// Wardrik's for `connect()` and `wardrik serve --stdio`; a third row, for reference, is Wardrik's server
// over the SDK's transport. Each row also gives the server process's CPU time per call (all its
// threads, from /proc): it moves far less than the time when other work shares the machine; and the
// client's, which shows what a larger answer (Wardrik's labels and conversation token) costs its reader.
import 'reflect-metadata';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernHttpTransport,
} from '@modelcontextprotocol/client';
import { StdioClientTransport as ModernStdioTransport } from '@modelcontextprotocol/client/stdio';
import { countListenerWarnings, measureInTurns, median, reportPairs, type PairResult } from './lib.js';

const listenerWarnings = countListenerWarnings();

const SERVER = fileURLToPath(new URL('./serve-server.js', import.meta.url));
const CONCURRENCY = 32;

type Which = 'sdk2' | 'sdk' | 'wardrik' | 'wardrik-sdk-stdio';
const NAMES: Record<Which, string> = {
  sdk2: 'SDK v2 McpServer',
  sdk: 'SDK v1 McpServer',
  wardrik: 'wardrik.mcpServer',
  'wardrik-sdk-stdio': "wardrik.mcpServer on SDK v1's stdio transport",
};
/** The protocol era a client speaks: 2025-11-25 (SDK v1's Client) or 2026-07-28 (SDK v2's, pinned). */
type Era = '2025' | '2026';

/** What a benchmark call needs of a client of either SDK. */
interface BenchClient {
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  close(): Promise<void>;
}

function eraClient(era: Era): {
  client: BenchClient;
  connect(transport: 'stdio' | URL, args?: string[]): Promise<number | undefined>;
} {
  if (era === '2025') {
    const c = new Client({ name: 'bench', version: '1.0.0' });
    return {
      client: c,
      async connect(to, args = []) {
        if (to !== 'stdio') return void (await c.connect(new StreamableHTTPClientTransport(to)));
        const transport = new StdioClientTransport({ command: process.execPath, args });
        await c.connect(transport);
        return transport.pid ?? undefined;
      },
    };
  }
  const c = new ModernClient(
    { name: 'bench', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  return {
    client: c,
    async connect(to, args = []) {
      if (to !== 'stdio') return void (await c.connect(new ModernHttpTransport(to)));
      const transport = new ModernStdioTransport({ command: process.execPath, args });
      await c.connect(transport);
      return transport.pid ?? undefined;
    },
  };
}

/** A client of `era` connected to a fresh server process of `which` kind. */
async function connect(
  which: Which,
  kind: 'stdio' | 'http',
  era: Era,
): Promise<{ client: BenchClient; pid: number | undefined; close: () => Promise<void> }> {
  const { client: c, connect: open } = eraClient(era);
  if (kind === 'stdio') {
    const pid = await open('stdio', [SERVER, which, kind]);
    return { client: c, pid, close: () => c.close() };
  }
  const child: ChildProcess = spawn(process.execPath, [SERVER, which, kind], { stdio: ['pipe', 'pipe', 'inherit'] });
  const [port] = (await once(child.stdout!, 'data')) as [Buffer];
  await open(new URL(`http://127.0.0.1:${port.toString().trim()}/mcp`));
  return {
    client: c,
    pid: child.pid,
    close: async () => {
      await c.close();
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

/** One server process of a pair, its client, how many calls were made to it, and the client's CPU time on them (µs). */
interface Side {
  readonly which: Which;
  readonly client: BenchClient;
  readonly pid: number | undefined;
  readonly close: () => Promise<void>;
  calls: number;
  clientUs: number;
}

/** Each side's CPU time per call, in µs, for one pair, its server's and its client's: one call at a time, then 32 at once. */
type CpuPerCall = { one: number[]; many: number[]; clientOne: number[]; clientMany: number[] };

/** The client process's CPU time (µs, all threads) spent in `op`: the sides of a pair never run at the same time. */
async function clientCpu(side: Side, op: () => Promise<unknown>): Promise<void> {
  const before = process.cpuUsage();
  await op();
  const { user, system } = process.cpuUsage(before);
  side.clientUs += user + system;
}

/** The servers compared: SDK v2's (the baseline), Wardrik's, and for reference in the 2025 era SDK v1's. */
function whichesOf(kind: 'stdio' | 'http', era: Era): Which[] {
  if (era === '2026') return ['sdk2', 'wardrik'];
  return kind === 'stdio' ? ['sdk2', 'wardrik', 'sdk', 'wardrik-sdk-stdio'] : ['sdk2', 'wardrik', 'sdk'];
}

async function measurePair(kind: 'stdio' | 'http', era: Era, cpu: CpuPerCall[]): Promise<PairResult> {
  const whiches = whichesOf(kind, era);
  const sides: Side[] = [];
  for (const which of whiches) sides.push({ which, ...(await connect(which, kind, era)), calls: 0, clientUs: 0 });
  const call = (side: Side) => () => {
    side.calls++;
    return side.client.callTool({ name: 'echo', arguments: { text: 'hello' } }).then((result) => {
      if ((result as { isError?: boolean }).isError === true) throw new Error(JSON.stringify(result));
    });
  };
  const batch = (op: () => Promise<unknown>) => () => Promise.all(Array.from({ length: CONCURRENCY }, op));
  /** Runs `measure`, giving each side's server and client CPU per call over it (warm-up included). */
  const withCpu = async <T>(measure: () => Promise<T>): Promise<[T, number[], number[]]> => {
    const before = sides.map((side) => [cpuNs(side.pid), side.calls, side.clientUs] as const);
    const result = await measure();
    const calls = (i: number) => sides[i]!.calls - before[i]![1];
    return [
      result,
      sides.map((side, i) => ((cpuNs(side.pid) ?? NaN) - (before[i]![0] ?? NaN)) / 1000 / calls(i)),
      sides.map((side, i) => (side.clientUs - before[i]![2]) / calls(i)),
    ];
  };
  const [one, cpuOne, clientOne] = await withCpu(() =>
    measureInTurns(
      sides.map((side) => ({
        name: `${NAMES[side.which]}, ${kind} ${era}, 1 at a time`,
        op: () => clientCpu(side, call(side)),
      })),
      { rounds: 11, perRound: kind === 'stdio' ? 200 : 100 },
    ),
  );
  const [many, cpuMany, clientMany] = await withCpu(() =>
    measureInTurns(
      sides.map((side) => ({
        name: `${NAMES[side.which]}, ${kind} ${era}, ${CONCURRENCY} at once`,
        op: () => clientCpu(side, batch(call(side))),
      })),
      { rounds: 11, perRound: kind === 'stdio' ? 40 : 10 },
    ),
  );
  for (const side of sides) await side.close();
  cpu.push({ one: cpuOne, many: cpuMany, clientOne, clientMany });
  return { one, many };
}

/** Prints each side's median server and client CPU per call over the pairs, and its ratio to the SDK's. */
function reportCpu(kind: 'stdio' | 'http', era: Era, cpu: readonly CpuPerCall[]): void {
  const whiches = whichesOf(kind, era);
  const phases = [
    ['server', 'one', '1 at a time'],
    ['server', 'many', `${CONCURRENCY} at once`],
    ['client', 'clientOne', '1 at a time'],
    ['client', 'clientMany', `${CONCURRENCY} at once`],
  ] as const;
  for (const [whose, phase, label] of phases) {
    if (cpu.some((pair) => pair[phase].some(Number.isNaN))) continue;
    const medians = cpu[0]![phase].map((_, side) => median(cpu.map((pair) => pair[phase][side]!)));
    console.log(
      `  ${whose} CPU per call, ${kind} ${era}, ${label} (median of pairs): ${medians.map((us, side) => `${NAMES[whiches[side]!]} ${us.toFixed(1)} µs (${(us / medians[0]!).toFixed(2)}x)`).join(', ')}`,
    );
  }
}

// HTTP 2026-07-28 gets twice the pairs: its two servers do the same CPU work a call, so its verdict rests on
// the median pair: with 4, two runs in a row gave 1.03x and 1.16x, and one run's pairs spread 0.82x-1.21x.
for (const [kind, era, pairs] of [
  ['stdio', '2025', 5],
  ['stdio', '2026', 5],
  ['http', '2025', 4],
  ['http', '2026', 8],
] as const) {
  const results: PairResult[] = [];
  const cpu: CpuPerCall[] = [];
  for (let pair = 0; pair < pairs; pair++) results.push(await measurePair(kind, era, cpu));
  reportPairs(`Served over ${kind}, MCP ${era === '2025' ? '2025-11-25' : '2026-07-28'}`, results, {
    target: 1.1,
    concurrency: CONCURRENCY,
    baseline: "SDK v2's",
  });
  reportCpu(kind, era, cpu);
}
listenerWarnings.printCount();
