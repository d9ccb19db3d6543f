// The cost of journaling a call, beside the cost of the database's own single-row insert and commit.
// Targets: on SQLite a call's start + finish (two commits) within 2.5x one raw insert-commit; on
// PostgreSQL each journaled step (one writeCall) within 1.2x one raw insert. The raw figures write
// the same table (the store's own, same columns and indexes) through the plain driver. A lease renewal,
// an agent step (appendStep + writeTurn compare-and-set) and an agent's tool call
// (two writeJournal commits), alone and for 100 runs at once, are shown beside them, without a target.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { PostgresStore } from '../src/store/postgres-store.js';
import { SqliteStore } from '../src/store/sqlite-store.js';
import { SQLITE_DRIVERS } from '../src/store/sqlite-driver.js';
import type { CallRecord, JournalWrite, Store } from '../src/store/store.js';
import { newRunId } from '../src/run-ids.js';
import { walFrames } from '../test/store/commit-counters.js';
import { format, type Measured, measureInTurns, report, type Timing } from './lib.js';
import { appendStep, leaseRun, releaseRun, writeCall, writeTurn } from '../src/store/journal-writes.js';

const args = JSON.stringify({ orderId: 'o-1', amount: 12.5, note: 'refund for a late delivery' });
const answer = { status: 'ok' as const, output: { refund: 're_123', status: 'succeeded' }, labels: [] };
let seq = 0;

function record(run: string, state: CallRecord['state']): CallRecord {
  return {
    run,
    call: 'c1',
    agent: 'bench',
    tool: 'orders/refund_order',
    arguments: JSON.parse(args) as unknown,
    idempotencyKey: `${run}:c1`,
    state,
    attempt: 1,
    ...(state === 'succeeded' ? { answer } : {}),
    updatedAt: Date.now(),
  };
}

/** One journaled call: its start, then its answer, each a compare-and-set. */
async function journaledCall(store: Store): Promise<void> {
  const run = `run-${seq++}`;
  if (!(await writeCall(store, record(run, 'started'), undefined))) throw new Error('start lost');
  if (!(await writeCall(store, record(run, 'succeeded'), 'started'))) throw new Error('finish lost');
}

const modelStep = {
  format: 1,
  kind: 'model',
  model: 'mock:mock-model',
  text: '',
  calls: [{ id: 'call_0', name: 'b__bump', input: '{}' }],
  finishReason: 'tool-calls',
  usage: { inputTokens: 10, outputTokens: 5 },
  usd: 0,
};
const toolsStep = { format: 1, kind: 'tools', results: [{ id: 'call_0', name: 'b__bump', text: '2', error: false }] };

/**
 * An agent's tool call: two `writeJournal` commits, the model step with the call's
 * `started`, then the call's answer with the tools step. `runs` runs do it at once (group commit shares
 * their commits); the figure is per tool call.
 */
function journaledToolCalls(store: Store, runs: number): () => Promise<void> {
  const ids = Array.from({ length: runs }, () => ({ run: `tools-${randomBytes(6).toString('hex')}`, step: 0 }));
  const one = async (at: { run: string; step: number }): Promise<void> => {
    const { run } = at;
    const index = at.step;
    at.step += 2;
    const call: CallRecord = { ...record(run, 'started'), call: `call_${index}` };
    const first = await store.writeJournal([
      { step: { run, index, data: modelStep, createdAt: Date.now() } },
      { call, expected: undefined },
    ]);
    const second = await store.writeJournal([
      { call: { ...call, state: 'succeeded', answer, updatedAt: Date.now() }, expected: 'started' },
      { step: { run, index: index + 1, data: toolsStep, createdAt: Date.now() } },
    ]);
    if (!first.every(Boolean) || !second.every(Boolean)) throw new Error('a journal write lost');
  };
  return async () => {
    await Promise.all(ids.map(one));
  };
}

/** Renews one run's lease: what a node does between a run's calls (one upsert). */
function leaseRenewal(store: Store): () => Promise<void> {
  const run = `lease-${randomBytes(4).toString('hex')}`;
  // A strictly later end each time: a renewal within the same millisecond of the store's clock writes the
  // bytes already there, which SQLite turns into a commit with nothing to write, and the figure would flatter it.
  let ttlMs = 30_000;
  return async () => {
    if (!(await leaseRun(store, run, 'bench-node', ++ttlMs))) throw new Error('lease lost');
  };
}

/** One journaled agent step: the step written once, then the turn moved on by compare-and-set. */
async function agentSteps(store: Store): Promise<() => Promise<void>> {
  const run = `turn-${randomBytes(4).toString('hex')}`;
  const data = {
    messages: [{ role: 'assistant', content: 'Refunding order o-1 now.' }],
    usage: { input: 812, output: 41 },
  };
  const base = { run, agent: 'bench', status: 'running' as const, data, createdAt: Date.now(), updatedAt: Date.now() };
  if (!(await writeTurn(store, { ...base, version: 0 }, undefined))) throw new Error('turn not created');
  let version = 0;
  return async () => {
    if (!(await appendStep(store, { run, index: version, data, createdAt: Date.now() }))) throw new Error('step lost');
    if (!(await writeTurn(store, { ...base, version: version + 1, updatedAt: Date.now() }, version)))
      throw new Error('turn lost');
    version++;
  };
}

const turnData = { messages: [{ role: 'user', content: 'Bump.' }] };
const bumpAnswer = { status: 'ok' as const, output: 2, labels: [] };

/**
 * One 10-step agent turn's store writes, as the agent loop makes them with a read-only tool (one
 * journal commit a tool call): its lease, its record, 11 journal commits (the previous call's answer
 * and tools step, the next model step and call), its record finished, its lease given up. `note`
 * hears each write's kind once it is done.
 */
async function agentTurn(store: Store, note: (kind: string) => void = () => undefined): Promise<void> {
  const run = newRunId();
  const now = Date.now();
  if (!(await leaseRun(store, run, 'bench-node', 30_000))) throw new Error('lease lost');
  note('lease');
  const turn = {
    run,
    agent: 'bench',
    status: 'running' as const,
    version: 0,
    data: turnData,
    createdAt: now,
    updatedAt: now,
  };
  if (!(await writeTurn(store, turn, undefined))) throw new Error('turn not created');
  note('turn created');
  let previous: CallRecord | undefined;
  for (let step = 0; step <= 10; step++) {
    const writes: JournalWrite[] = [];
    if (previous !== undefined) {
      writes.push({
        call: { ...previous, state: 'succeeded', answer: bumpAnswer, updatedAt: Date.now() },
        expected: 'started',
      });
      writes.push({ step: { run, index: 2 * step - 1, data: toolsStep, createdAt: Date.now() } });
    }
    if (step < 10) {
      previous = {
        ...record(run, 'started'),
        call: `call_${step}`,
        idempotencyKey: `${run}:call_${step}`,
        arguments: {},
      };
      writes.push(
        { step: { run, index: 2 * step, data: modelStep, createdAt: Date.now() } },
        { call: previous, expected: undefined },
      );
    }
    if (!(await store.writeJournal(writes)).every(Boolean)) throw new Error('a journal write lost');
    note('journal commit');
  }
  if (!(await writeTurn(store, { ...turn, status: 'done', version: 1, updatedAt: Date.now() }, 0)))
    throw new Error('turn lost');
  note('turn finished');
  await releaseRun(store, run, 'bench-node');
  note('lease given up');
}

/**
 * Probe: what a commit costs is mostly the pages it appends to the log, whole. The same agent turns on
 * a file of 4 KiB pages (what stores made before version 8 have) and on a new file (2 KiB pages): pages
 * and bytes a write of each kind appends, counted in the log over the first turns (before any checkpoint
 * restarts it), then the time a turn takes, the two files in turns.
 */
async function sqlitePages(dir: string): Promise<void> {
  const old = join(dir, 'pages-4k.db');
  const made = new Database(old);
  made.pragma('page_size = 4096');
  made.pragma('journal_mode = WAL');
  made.close();
  const files = { '4 KiB pages': old, 'new file (2 KiB pages)': join(dir, 'pages-new.db') };
  const stores = Object.entries(files).map(([name, path]) => ({ name, path, store: new SqliteStore({ path }) }));
  try {
    console.log(
      '\nSQLite pages appended to the log per write of an agent turn (10 read-only tool calls), synchronous=NORMAL',
    );
    for (const { name, path, store } of stores) {
      const pageBytes = new Database(path, { readonly: true }).pragma('page_size', { simple: true }) as number;
      const pages = new Map<string, { writes: number; pages: number }>();
      let seen = walFrames(path).length;
      const note = (kind: string): void => {
        const now = walFrames(path).length;
        const entry = pages.get(kind) ?? { writes: 0, pages: 0 };
        pages.set(kind, { writes: entry.writes + 1, pages: entry.pages + now - seen });
        seen = now;
      };
      // 5 turns append about 500 pages of 4 KiB: below SQLite's first checkpoint (1 000 pages).
      for (let i = 0; i < 5; i++) await agentTurn(store, note);
      const row = [...pages].map(
        ([kind, { writes, pages: n }]) =>
          `${kind} ${(n / writes).toFixed(2)} (${(((n / writes) * pageBytes) / 1024).toFixed(1)} KiB)`,
      );
      console.log(`  ${name.padEnd(24)} ${row.join(', ')}`);
    }
    const timings = await measureInTurns(
      stores.map(({ name, store }) => ({ name, op: () => agentTurn(store) })),
      { rounds: 9, perRound: 60 },
    );
    console.log('  a whole turn (15 commits), the two files in turns:');
    for (const timing of timings)
      console.log(`  ${timing.name.padEnd(24)} ${format(timing.ns / 15).padStart(10)} a commit`);
  } finally {
    for (const { store } of stores) await store.close();
  }
}

/** The store on each driver, interleaved round by round with the raw insert, so both drivers meet the same machine. */
async function sqlite(dir: string, synchronous: 'normal' | 'full'): Promise<void> {
  // FULL waits for the disk on every commit: fewer operations keep it to a few seconds.
  const size = synchronous === 'full' ? { rounds: 15, perRound: 100 } : { rounds: 15, perRound: 500 };
  const rawPath = join(dir, `raw-${synchronous}.db`);
  // The same schema, then written by plain better-sqlite3 (a file of its own: one SQLite library a file).
  await new SqliteStore({ path: rawPath, driver: 'better-sqlite3' }).close();
  const db = new Database(rawPath);
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${synchronous.toUpperCase()}`);
  const insert = db.prepare(
    `INSERT INTO calls (run, call, agent, tool, arguments, idempotency_key, state, attempt, answer, inbox_id, updated_at)
     VALUES (?, 'c1', 'bench', 'orders/refund_order', ?, ?, 'started', 1, NULL, NULL, ?)`,
  );
  const stores = SQLITE_DRIVERS.map(
    (driver) =>
      [driver, new SqliteStore({ path: join(dir, `store-${synchronous}-${driver}.db`), synchronous, driver })] as const,
  );
  try {
    const ops: Measured[] = [
      {
        name: `raw better-sqlite3 INSERT + commit (${synchronous})`,
        op: () => {
          const run = `raw-${seq++}`;
          insert.run(run, args, `${run}:c1`, Date.now());
        },
      },
    ];
    for (const [driver, store] of stores) {
      const step = await agentSteps(store);
      ops.push(
        {
          name: `SqliteStore start + finish (2 writeCalls, ${synchronous}, ${driver})`,
          op: () => journaledCall(store),
        },
        { name: `SqliteStore leaseRun renewal (${synchronous}, ${driver})`, op: leaseRenewal(store) },
        { name: `SqliteStore agent step (appendStep + writeTurn, ${synchronous}, ${driver})`, op: step },
        {
          name: `SqliteStore tool call (2 writeJournal commits, ${synchronous}, ${driver})`,
          op: journaledToolCalls(store, 1),
        },
        {
          name: `SqliteStore 100 runs' tool calls at once (${synchronous}, ${driver})`,
          op: journaledToolCalls(store, 100),
        },
      );
    }
    const [raw, ...timings] = await measureInTurns(ops, size);
    const rows = SQLITE_DRIVERS.flatMap((driver, d) => {
      const [journaled, lease, agentStep, toolCall, hundred] = timings.slice(d * 5, d * 5 + 5) as Timing[];
      return [
        { timing: journaled!, target: 2.5 },
        { timing: lease! },
        { timing: agentStep! },
        { timing: toolCall! },
        {
          timing: { name: `  the same, per tool call of 100 at once (group commit, ${driver})`, ns: hundred!.ns / 100 },
        },
      ];
    });
    report(`SQLite, synchronous=${synchronous.toUpperCase()}, WAL (${dir})`, raw!, rows);
    const [node, better] = [0, 1].map((d) => timings[d * 5 + 3]!.ns);
    console.log(`  node:sqlite against better-sqlite3, a tool call's two commits: ${(node! / better!).toFixed(2)}x`);
  } finally {
    db.close();
    for (const [, store] of stores) await store.close();
  }
}

async function postgres(url: string): Promise<void> {
  const schema = `wardrik_bench_${randomBytes(4).toString('hex')}`;
  const store = await new PostgresStore({ url, schema }).start();
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  try {
    const text = `INSERT INTO "${schema}".calls (run, call, agent, tool, arguments, idempotency_key, state, attempt, answer, inbox_id, updated_at)
      VALUES ($1, 'c1', 'bench', 'orders/refund_order', $2::json, $3, 'started', 1, NULL, NULL, $4)`;
    const rawInsert = (name?: string) => () => {
      const run = `raw-${seq++}`;
      return pool.query({
        ...(name === undefined ? {} : { name }),
        text,
        values: [run, args, `${run}:c1`, Date.now()],
      });
    };
    // The baseline is the driver at its fastest (a prepared statement, as the store uses); the plain
    // unprepared query is shown for reference.
    const step = await agentSteps(store);
    const [raw, unprepared, journaled, lease, agentStep, toolCall, hundred] = await measureInTurns(
      [
        { name: 'raw pg INSERT + commit (prepared statement)', op: rawInsert('bench_insert') },
        { name: 'raw pg INSERT + commit (plain query)', op: rawInsert() },
        { name: 'PostgresStore start + finish (2 writeCalls)', op: () => journaledCall(store) },
        { name: 'PostgresStore leaseRun renewal', op: leaseRenewal(store) },
        { name: 'PostgresStore agent step (appendStep + writeTurn)', op: step },
        { name: 'PostgresStore tool call (2 writeJournal commits)', op: journaledToolCalls(store, 1) },
        { name: "PostgresStore 100 runs' tool calls at once", op: journaledToolCalls(store, 100) },
      ],
      { rounds: 15, perRound: 100 },
    );
    const perStep = { name: 'PostgresStore per journaled step (1 writeCall)', ns: journaled!.ns / 2 };
    report(`PostgreSQL (${url.replace(/\/\/([^:/@]+):[^@/]*@/, '//$1:***@')})`, raw!, [
      { timing: unprepared! },
      { timing: perStep, target: 1.2 },
      { timing: journaled! },
      { timing: lease! },
      { timing: agentStep! },
      { timing: toolCall! },
      { timing: { name: '  the same, per tool call of 100 at once (group commit)', ns: hundred!.ns / 100 } },
    ]);
  } finally {
    await pool.query(`DROP SCHEMA "${schema}" CASCADE`);
    await pool.end();
    await store.close();
  }
}

const dir = mkdtempSync(join(process.env.WARDRIK_BENCH_DIR ?? tmpdir(), 'wardrik-bench-'));
try {
  await sqlitePages(dir);
  await sqlite(dir, 'normal');
  await sqlite(dir, 'full');
} finally {
  rmSync(dir, { recursive: true, force: true });
}
await postgres(process.env.WARDRIK_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test');
