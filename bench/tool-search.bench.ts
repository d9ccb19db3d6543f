// Tool search (issue 35, point 5): an agent whose whole catalog is deferred, about a thousand tools of
// the kinds a company connects (tool-search-catalog.ts) plus the reference MCP servers' own (everything,
// filesystem, memory, over real stdio). For each of fifty requests worded as a person would, a turn in
// which the model searches with the request's words, then answers. Printed:
// - the tokens of tool definitions sent a step (JSON characters / 4), against sending every tool each
//   step (target ≤ 10%);
// - how often the search's top five held the request's right tool (target ≥ 90%);
// - the search's time a query over the whole index.
import 'reflect-metadata';
import { mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Wardrik } from '../src/index.js';
import { scriptedModel, type ScriptedCall } from '../src/testing/index.js';
import { ToolIndex } from '../src/agent/tool-search.js';
import { generatedCatalog, REQUESTS } from './tool-search-catalog.js';

const require = createRequire(import.meta.url);
const server = (name: string, ...args: string[]) => ({
  transport: {
    stdio: {
      command: process.execPath,
      args: [require.resolve(`@modelcontextprotocol/server-${name}/dist/index.js`), ...args],
    },
  },
});
const dir = mkdtempSync(join(tmpdir(), 'wardrik-tool-search-'));
const wardrik = await Wardrik.create({
  store: 'memory:',
  recoverMs: Infinity,
  tools: generatedCatalog(),
  mcp: {
    servers: {
      everything: server('everything', 'stdio'),
      files: server('filesystem', dir),
      memory: {
        transport: { stdio: { ...server('memory').transport.stdio, env: { MEMORY_FILE_PATH: join(dir, 'm.jsonl') } } },
      },
    },
  },
});
const all = wardrik.tools();
const tokens = (definitions: readonly object[]) => Math.ceil(JSON.stringify(definitions).length / 4);
const allTokens = tokens(
  all.map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema })),
);

let hits = 0;
const missed: string[] = [];
const sentTokens: number[] = [];
for (const [i, [request, right]] of REQUESTS.entries()) {
  let loaded: string[] = [];
  const model = scriptedModel([
    (call: ScriptedCall) => {
      sentTokens.push(tokens(call.tools));
      return { toolCalls: [{ name: 'wardrik__search_tools', arguments: { query: request } }] };
    },
    (call: ScriptedCall) => {
      sentTokens.push(tokens(call.tools));
      loaded = (JSON.parse(call.lastToolResult ?? '{}') as { loaded: { name: string }[] }).loaded.map((t) => t.name);
      return { text: 'Found it.' };
    },
  ]);
  const agent = wardrik.startAgent({ id: `request-${i}`, model, tools: [], deferred: ['**'], historyTurns: 0 });
  const turn = await agent.send(request);
  if (turn.status !== 'done') throw new Error(`request ${i} ended ${turn.status}: ${turn.error}`);
  if (loaded.includes(right.replace('/', '__'))) hits++;
  else missed.push(`${request} → ${right} (found ${loaded.join(', ') || 'nothing'})`);
}

// The search's own time: the index over every tool, each request ranked, many times.
const entries = all.map((tool) => {
  const [toolset = '', name = ''] = tool.name.split('__');
  return { toolset, name: tool.name, ref: `${toolset}/${name}`, tool };
});
const started = performance.now();
const index = new ToolIndex(entries as never);
const built = performance.now() - started;
const ROUNDS = 20;
const searchStart = performance.now();
for (let round = 0; round < ROUNDS; round++) for (const [request] of REQUESTS) index.rank(request);
const perQuery = (performance.now() - searchStart) / (ROUNDS * REQUESTS.length);
await wardrik.close();

const meanSent = sentTokens.reduce((a, b) => a + b, 0) / sentTokens.length;
const share = meanSent / allTokens;
const accuracy = hits / REQUESTS.length;
console.log(`\nTool search over ${all.length} tools (${REQUESTS.length} requests, a whole-catalog deferred agent)`);
console.log(`  every tool's definition, each step        ${allTokens} tokens`);
console.log(
  `  sent a step with search (mean)            ${meanSent.toFixed(0)} tokens  ${(share * 100).toFixed(1)}%  target ≤ 10%: ${share <= 0.1 ? 'met' : 'MISSED'}`,
);
console.log(
  `  right tool in the search's top 5          ${hits}/${REQUESTS.length}  ${(accuracy * 100).toFixed(0)}%  target ≥ 90%: ${accuracy >= 0.9 ? 'met' : 'MISSED'}`,
);
console.log(`  index built in ${built.toFixed(1)} ms; a query takes ${(perQuery * 1000).toFixed(0)} µs`);
for (const miss of missed) console.log(`    missed: ${miss}`);
