// What durability costs per tool call, and how it holds under concurrency. In one run:
// - the agent loop per tool call at 10 and 50 steps on memory, SQLite (synchronous normal and full) and
//   PostgreSQL, against the AI SDK's generateText loop over the same fake model and tool, each warmed up
//   first;
// - the database's own floor, measured here: a raw better-sqlite3 insert-and-commit of a small row
//   (WAL, synchronous normal) and a raw PostgreSQL round trip (an autocommitted insert of a small row);
// - targets: SQLite normal per call ≤ memory + 4 raw commits; PostgreSQL ≤ memory + 2.5 raw round trips,
//   each pass against the floors of that pass, the verdict the median of three passes;
// - journaled tool calls per second with 1, 10 and 100 agents running turns at once, SQLite and PostgreSQL.
import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { Wardrik } from '../src/index.js';
import { fakeModel, aiSdkLoop, wardrikLoop, bump } from './agent-loop.js';
import { format, measure, median, type Timing } from './lib.js';

const PG_URL = process.env.WARDRIK_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const dir = mkdtempSync(join(tmpdir(), 'wardrik-journal-bench-'));
const schemas: string[] = [];
const pgUrl = (): string => {
  const schema = `wardrik_bench_${randomBytes(5).toString('hex')}`;
  schemas.push(schema);
  return `${PG_URL}?schema=${schema}`;
};

let files = 0;

async function rawSqliteCommit(): Promise<Timing> {
  const db = new Database(join(dir, `raw-${files++}.db`));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, run TEXT NOT NULL, body TEXT NOT NULL)');
  const insert = db.prepare('INSERT INTO t (run, body) VALUES (?, ?)');
  let n = 0;
  // Autocommit: each insert is its own transaction, one commit.
  const timing = await measure('raw better-sqlite3 insert-and-commit', () => insert.run(`run-${n++}`, '{"n":1}'), {
    perRound: 500,
    rounds: 9,
  });
  db.close();
  return timing;
}

async function rawPostgresRoundTrip(): Promise<Timing> {
  const pool = new pg.Pool({ connectionString: PG_URL, max: 1 });
  const table = `wardrik_bench_raw_${randomBytes(5).toString('hex')}`;
  await pool.query(
    `CREATE TABLE ${table} (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, run text NOT NULL, body json NOT NULL)`,
  );
  let n = 0;
  try {
    return await measure(
      'raw PostgreSQL insert round trip',
      () =>
        pool.query({
          name: 'raw_insert',
          text: `INSERT INTO ${table} (run, body) VALUES ($1, $2)`,
          values: [`run-${n++}`, '{"n":1}'],
        }),
      { perRound: 200, rounds: 9 },
    );
  } finally {
    await pool.query(`DROP TABLE ${table}`);
    await pool.end();
  }
}

/**
 * Turns each loop runs before it is timed, about 3,000 journal commits: JIT, the store's caches and its
 * checkpoint thread (started after 500 commits) settle first, and SQLite's log has gone round once (a
 * commit that grows the log file costs ~20% more than one that writes over it, which is what a running
 * service's commits do).
 */
const WARM_UP_TURNS = { 10: 250, 50: 60 } as const;

/**
 * The AI SDK's loop, then Wardrik's on memory, SQLite normal, SQLite full, PostgreSQL, and SQLite normal on the
 * better-sqlite3 driver (the others are on the default, Node's own node:sqlite).
 */
type Loops = readonly [Timing, Timing, Timing, Timing, Timing, Timing];

/**
 * The agent loop per tool call on each store and the AI SDK's, each warmed up, timed and closed before
 * the next starts: a SQLite store's checkpoint thread, left running beside another loop, would take that
 * loop's core on this two-core machine.
 */
async function loopsPerCall(steps: 10 | 50): Promise<Loops> {
  const perRound = steps === 10 ? 20 : 4;
  const timed = async (name: string, op: () => Promise<unknown>): Promise<Timing> => {
    for (let turn = 0; turn < WARM_UP_TURNS[steps]; turn++) await op();
    const { ns } = await measure(name, op, { perRound, rounds: 9 });
    return { name, ns: ns / steps };
  };
  const wardrik = async (name: string, store: string): Promise<Timing> => {
    const [opened, op] = await wardrikLoop(store, steps, name);
    try {
      return await timed(name, op);
    } finally {
      await opened.close();
    }
  };
  return [
    await timed('AI SDK generateText', aiSdkLoop(steps)),
    await wardrik('Wardrik, memory', 'memory:'),
    await wardrik('Wardrik, SQLite normal', `sqlite:${join(dir, `normal-${files++}.db`)}`),
    await wardrik('Wardrik, SQLite full', `sqlite:${join(dir, `full-${files++}.db`)}?synchronous=full`),
    await wardrik('Wardrik, PostgreSQL', pgUrl()),
    await wardrik(
      'Wardrik, SQLite normal, better-sqlite3',
      `sqlite:${join(dir, `better-${files++}.db`)}?driver=better-sqlite3`,
    ),
  ];
}

/** Tool calls per second with `agents` agents each running a turn of `steps` steps at once. */
async function throughput(store: string, agents: number, steps: number): Promise<number> {
  const wardrik = await Wardrik.create({
    store,
    recoverMs: Infinity,
    tools: { b: [bump] },
    retention: { finishedAfterMs: Infinity },
  });
  try {
    const team = Array.from({ length: agents }, (_, i) =>
      wardrik.startAgent({ id: `load-${i}`, model: fakeModel(), tools: ['b/*'], maxSteps: steps, historyTurns: 0 }),
    );
    const rates: number[] = [];
    for (let round = 0; round < 4; round++) {
      const start = process.hrtime.bigint();
      const turns = await Promise.all(team.map((agent) => agent.send('Bump.')));
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      if (turns.some((turn) => turn.steps !== steps))
        throw new Error(`a turn ended early: ${turns.find((turn) => turn.steps !== steps)?.error}`);
      if (round > 0) rates.push((agents * steps) / seconds); // the first round warms up
    }
    return median(rates);
  } finally {
    await wardrik.close();
  }
}

/**
 * Passes of the whole comparison (raw floors, then each loop), one after another. This machine's speed
 * drifts by a third over tens of seconds, so one pass can decide a verdict by its timing alone; each pass
 * compares with the floors measured in that pass, and the verdict is the median pass's.
 */
const PASSES = 3;

interface Pass {
  readonly loops: Loops;
  readonly sqliteRaw: Timing;
  readonly pgRaw: Timing;
}

/** The targets: a store's loop against the memory loop plus so many of its raw floor. */
const TARGETS = [
  { label: 'SQLite normal', loop: 2, floor: 'sqliteRaw', units: 4, unit: 'raw commits' },
  { label: 'PostgreSQL', loop: 4, floor: 'pgRaw', units: 2.5, unit: 'raw round trips' },
  { label: 'SQLite normal, better-sqlite3', loop: 5, floor: 'sqliteRaw', units: 4, unit: 'raw commits' },
] as const;

/** One pass's figures for a target: the store's loop, the memory loop and the floor's unit, in ns. */
function sides(
  pass: Pass,
  target: (typeof TARGETS)[number],
): { store: number; memory: number; unit: number; limit: number } {
  const store = pass.loops[target.loop].ns;
  const memory = pass.loops[1].ns;
  const unit = pass[target.floor].ns;
  return { store, memory, unit, limit: memory + target.units * unit };
}

function reportPasses(steps: number, passes: readonly Pass[]): void {
  const [ai, ...rest] = passes[0]!.loops.map((timing, i) => ({
    name: timing.name,
    ns: median(passes.map((pass) => pass.loops[i]!.ns)),
  }));
  console.log(
    `\nAgent loop, per tool call, ${steps} steps (baseline: the AI SDK's loop; medians of ${passes.length} passes)`,
  );
  for (const timing of [ai!, ...rest]) {
    console.log(
      `  ${timing.name.padEnd(32)} ${format(timing.ns).padStart(10)}   ${(timing.ns / ai!.ns).toFixed(2)}x the AI SDK`,
    );
  }
  console.log(
    `  raw insert-and-commit ${format(median(passes.map((pass) => pass.sqliteRaw.ns)))}; raw PostgreSQL round trip ${format(median(passes.map((pass) => pass.pgRaw.ns)))}`,
  );
  for (const target of TARGETS) {
    const each = passes.map((pass) => sides(pass, target));
    const verdict = median(each.map(({ store, limit }) => store / limit));
    const figures = each
      .map(({ store, limit }) => `${format(store)} / ${format(limit)} = ${(store / limit).toFixed(2)}x`)
      .join('; ');
    console.log(`  ${target.label} against memory + ${target.units} ${target.unit}, each pass: ${figures}`);
    console.log(`    median ${verdict.toFixed(2)}x the limit: ${verdict <= 1 ? 'met' : 'MISSED'}`);
    console.log(
      `    journal's share per call, each pass: ${each.map(({ store, memory, unit }) => ((store - memory) / unit).toFixed(1)).join(', ')} ${target.unit}`,
    );
  }
}

try {
  for (const steps of [10, 50] as const) {
    const passes: Pass[] = [];
    for (let pass = 0; pass < PASSES; pass++) {
      const sqliteRaw = await rawSqliteCommit();
      const pgRaw = await rawPostgresRoundTrip();
      passes.push({ loops: await loopsPerCall(steps), sqliteRaw, pgRaw });
    }
    reportPasses(steps, passes);
  }
  console.log('\nJournaled tool calls per second, agents running 10-step turns at once');
  for (const agents of [1, 10, 100]) {
    const sqlite = await throughput(`sqlite:${join(dir, `load-${agents}.db`)}`, agents, 10);
    const better = await throughput(`sqlite:${join(dir, `load-b-${agents}.db`)}?driver=better-sqlite3`, agents, 10);
    const postgres = await throughput(pgUrl(), agents, 10);
    const rate = (perSecond: number): string => `${Math.round(perSecond).toLocaleString('en')} calls/s`;
    console.log(
      `  ${String(agents).padStart(3)} agents: SQLite ${rate(sqlite)} (better-sqlite3 ${rate(better)}), PostgreSQL ${rate(postgres)}`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
  const admin = new pg.Pool({ connectionString: PG_URL, max: 1 });
  for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
  await admin.end();
}
