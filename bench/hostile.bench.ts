// How long a hostile MCP server or tool schema can stall the event loop (issue 14): the longest delay
// a 5 ms interval timer sees while
//   1. a hub connects to a server listing 20,000 tools (maxTools as default, then raised to let all in);
//   2. a server of 3,000 tools says list_changed every 500 ms for 5 s, one tool's description changing each time;
//   3. a call's argument meets a catastrophic pattern, ^(a+)+$, with 20 to 26 characters.
import 'reflect-metadata';
import { defineTool, Wardrik, type McpHubOptions } from '../src/index.js';
import { startRawServer } from '../test/mcp/fixtures/raw-http-server.js';

interface Stall {
  readonly maxMs: number;
  readonly meanMs: number;
  readonly tookMs: number;
}

/**
 * How late a 5 ms interval timer runs while `work` goes on: the longest lateness, and the mean. The
 * timer starts before the work and is read once after it, so a stall at either end is seen.
 */
async function stallDuring(work: () => Promise<void>): Promise<Stall> {
  const period = 5;
  let last = performance.now();
  let maxMs = 0;
  let total = 0;
  let ticks = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    const late = Math.max(0, now - last - period);
    maxMs = Math.max(maxMs, late);
    total += late;
    ticks++;
    last = now;
  }, period);
  await new Promise((resolve) => setTimeout(resolve, 20));
  const start = performance.now();
  await work();
  const tookMs = performance.now() - start;
  await new Promise((resolve) => setTimeout(resolve, 20));
  clearInterval(timer);
  return { maxMs, meanMs: ticks === 0 ? 0 : total / ticks, tookMs };
}

const tool = (name: string, description: string) => ({
  name,
  description,
  inputSchema: {
    type: 'object',
    properties: { q: { type: 'string', maxLength: 100 }, n: { type: 'integer', minimum: 0 } },
    required: ['q'],
  },
  annotations: { readOnlyHint: true },
});

async function manyTools(maxTools: number | undefined): Promise<void> {
  const tools = Array.from({ length: 20_000 }, (_, i) => tool(`t${i}`, `Tool number ${i}.`));
  const server = await startRawServer({ tools, onCall: (_call, res) => res.writeHead(500).end() });
  let wardrik: Wardrik | undefined;
  // `maxTools` as a cast, so this file also builds against a Wardrik without it (to measure before).
  const mcp = {
    servers: { raw: { transport: { http: { url: server.url } } } },
    waitMs: 120_000,
    ...(maxTools === undefined ? {} : { maxTools }),
  } as McpHubOptions;
  const stall = await stallDuring(async () => {
    wardrik = await Wardrik.create({ store: 'memory:', recoverMs: Infinity, mcp });
  });
  console.log(
    `20,000 tools listed, maxTools ${maxTools ?? 'default'}: ${wardrik!.tools().length} offered; longest event-loop stall ${stall.maxMs.toFixed(0)} ms; connect and list took ${stall.tookMs.toFixed(0)} ms`,
  );
  await wardrik!.close();
  await server.close();
}

async function relisting(): Promise<void> {
  let version = 0;
  const tools = Array.from({ length: 3_000 }, (_, i) => tool(`t${i}`, `Tool number ${i}.`));
  const server = await startRawServer({ tools, onCall: (_call, res) => res.writeHead(500).end() });
  const wardrik = await Wardrik.create({
    store: 'memory:',
    recoverMs: Infinity,
    mcp: {
      servers: { raw: { transport: { http: { url: server.url } } } },
      waitMs: 60_000,
      maxTools: 3_000,
    } as McpHubOptions,
  });
  const stall = await stallDuring(async () => {
    for (let i = 0; i < 10; i++) {
      version++;
      tools[version % tools.length] = tool(`t${version % tools.length}`, `Tool number ${version}, changed.`);
      server.listChanged();
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  });
  console.log(
    `3,000 tools, list_changed every 500 ms for 5 s: ${wardrik.tools().length} offered; longest event-loop stall ${stall.maxMs.toFixed(0)} ms, mean delay ${stall.meanMs.toFixed(1)} ms`,
  );
  await wardrik.close();
  await server.close();
}

async function catastrophicPattern(): Promise<void> {
  const evil = defineTool({
    name: 'evil',
    description: 'A tool whose schema has a catastrophic pattern.',
    input: { type: 'object', properties: { name: { type: 'string', pattern: '^(a+)+$' } } },
    annotations: { readOnly: true },
    run: () => 'ran',
  });
  const wardrik = await Wardrik.create({ store: 'memory:', recoverMs: Infinity, tools: { t: [evil] } });
  for (const n of [20, 22, 24, 26]) {
    let status = '';
    const stall = await stallDuring(async () => {
      const answer = await wardrik.runner.run({
        agent: 'a',
        run: 'r',
        call: { id: `c${n}`, name: 't__evil', arguments: { name: `${'a'.repeat(n)}!` } },
      });
      status = answer.status === 'error' ? answer.code : answer.status;
    });
    console.log(
      `pattern ^(a+)+$ with ${n} characters: answer ${status}; longest event-loop stall ${stall.maxMs.toFixed(0)} ms`,
    );
  }
  await wardrik.close();
}

await manyTools(undefined);
await manyTools(20_000);
await relisting();
await catastrophicPattern();
