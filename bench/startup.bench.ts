// Start-up: the time from spawning `wardrik serve MODULE --stdio` to its answer to `initialize`, against
// the same `echo` tool served by a bare MCP SDK server (McpServer over the SDK's stdio transport, which
// imports only the SDK and zod) spawned the same way. A client such as the OpenAI Agents SDK's stdio one
// gives a server 5 s to answer (target: ≤ 1.5x the bare server, memory store). For reference, rows for a
// SQLite store (a file made once before, as an app's is) and for a module of decorated toolset classes
// whose DTOs load class-validator (examples/orders). Rounds are interleaved, each spawning every
// server once in a rotating order, so a slow spell of the shared machine falls on all of them.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './lib.js';

const path = (relative: string) => fileURLToPath(new URL(relative, import.meta.url));
const CLI = path('../src/cli/main.js');
const ROUNDS = 15;
const sqlite = `sqlite:${join(mkdtempSync(join(tmpdir(), 'wardrik-startup-')), 'w.db')}`;

interface Server {
  readonly name: string;
  readonly args: readonly string[];
  readonly target?: number;
}
const wardrikServe = (module: string, store: string) => [CLI, 'serve', path(module), '--stdio', '--store', store];
const SERVERS: readonly Server[] = [
  { name: 'bare SDK McpServer (baseline)', args: [path('./startup-bare-server.js')] },
  { name: 'wardrik serve, memory store', args: wardrikServe('./startup-tools.js', 'memory:'), target: 1.5 },
  { name: 'wardrik serve, SQLite store', args: wardrikServe('./startup-tools.js', sqlite) },
  { name: 'wardrik serve, DTO toolset (orders)', args: wardrikServe('../examples/orders/order-tools.js', 'memory:') },
];

const INITIALIZE = `${JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1.0.0' } },
})}\n`;

/** Milliseconds from spawning the server to the end of its answer to `initialize` (sent at once, as clients do). */
function timeToInitialize(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(process.execPath, server.args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (!stdout.includes('\n')) return;
      const elapsed = Number(process.hrtime.bigint() - start) / 1e6;
      const answer = JSON.parse(stdout.slice(0, stdout.indexOf('\n'))) as { id?: number; result?: unknown };
      child.stdin.end();
      child.once('close', () =>
        answer.id === 1 && answer.result !== undefined
          ? resolve(elapsed)
          : reject(new Error(`${server.name} answered ${stdout}`)),
      );
    });
    child.once('close', (code) => {
      if (!stdout.includes('\n')) reject(new Error(`${server.name} exited (${code}) before answering: ${stderr}`));
    });
    child.stdin.write(INITIALIZE);
  });
}

// Once each first: the SQLite file is made and migrated, and the OS caches the files every server reads.
for (const server of SERVERS) await timeToInitialize(server);
const samples = SERVERS.map((): number[] => []);
for (let round = 0; round < ROUNDS; round++) {
  for (let k = 0; k < SERVERS.length; k++) {
    const index = (k + round) % SERVERS.length;
    samples[index]!.push(await timeToInitialize(SERVERS[index]!));
  }
}
const medians = samples.map(median);
console.log(`\nSpawn to the answer to initialize over stdio (median of ${ROUNDS} interleaved rounds)`);
for (const [i, server] of SERVERS.entries()) {
  const ratio = medians[i]! / medians[0]!;
  const verdict =
    server.target === undefined ? '' : `  target ≤ ${server.target}x: ${ratio <= server.target ? 'met' : 'MISSED'}`;
  const range = `${Math.min(...samples[i]!).toFixed(0)}-${Math.max(...samples[i]!).toFixed(0)} ms`;
  console.log(
    `  ${server.name.padEnd(40)} ${medians[i]!.toFixed(0).padStart(6)} ms  ${ratio.toFixed(2)}x  (${range})${verdict}`,
  );
}
