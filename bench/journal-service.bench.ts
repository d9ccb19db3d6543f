// The journal's speed where a service uses it (issue 29, point 9). A service starts a new agent for each
// request and runs one turn on it; here each turn is ten tool calls (the scripted model from
// wardrik/testing asks for a trivial tool ten times, then answers), on one Wardrik per store, in one
// process. Measured in turns, round after round (lib.ts `measureInTurns`), so a slow spell of this shared
// machine falls on every side alike:
// - a turn on the memory store;
// - the same turn on SQLite (synchronous normal, the default), on the default driver (Node's own node:sqlite)
//   and on better-sqlite3;
// - 40 raw better-sqlite3 insert-and-commits of a small row (WAL, synchronous normal): 4 a tool call.
// The limit of a SQLite turn is the memory turn plus those 40 raw commits (memory + 4 raw commits a
// call); the target is SQLite ≤ the limit, held to the median of several passes, each against the
// floors of that pass.
import 'reflect-metadata';
import { closeSync, mkdtempSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Wardrik } from '../src/index.js';
import { scriptedModel } from '../src/testing/index.js';
import { bump } from './agent-loop.js';
import { format, measureInTurns, median } from './lib.js';

/** Tool calls a turn. */
const CALLS = 10;
/** Raw commits a tool call in the limit. */
const RAW_PER_CALL = 4;
/**
 * Turns each side runs before it is timed, about 3,000 journal commits on SQLite: JIT, the store's
 * caches and its checkpoint thread (started after 500 commits) settle first, and SQLite's log has gone
 * round once, as a running service's has.
 */
const WARM_UP_TURNS = 250;
const PASSES = 3;

const dir = mkdtempSync(join(process.env.WARDRIK_BENCH_DIR ?? tmpdir(), 'wardrik-service-bench-'));

/** A Wardrik on `store` and what a request does there: start an agent, send it one turn. */
async function service(store: string): Promise<[Wardrik, () => Promise<void>]> {
  const wardrik = await Wardrik.create({ store, recoverMs: Infinity, tools: { b: [bump] } });
  let requests = 0;
  const turn = async (): Promise<void> => {
    const model = scriptedModel(({ index }) =>
      index < CALLS ? { toolCalls: [{ name: 'b__bump', arguments: {} }] } : { text: 'Bumped.' },
    );
    // A new agent a request, as a service starts one for each; its conversation starts empty.
    const agent = wardrik.startAgent({ id: `request-${requests++}`, model, tools: ['b/*'], maxSteps: CALLS + 1 });
    const result = await agent.send('Bump ten times.');
    if (result.status !== 'done' || result.steps !== CALLS + 1)
      throw new Error(
        `expected a done turn of ${CALLS + 1} steps, got ${result.status} (${result.steps}): ${result.error}`,
      );
  };
  return [wardrik, turn];
}

/** Raw insert-and-commits in autocommit: each insert is its own transaction, one commit. */
function rawCommits(): [Database.Database, () => void] {
  const db = new Database(join(dir, 'raw.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, run TEXT NOT NULL, body TEXT NOT NULL)');
  const insert = db.prepare('INSERT INTO t (run, body) VALUES (?, ?)');
  let n = 0;
  return [
    db,
    () => {
      for (let i = 0; i < CALLS * RAW_PER_CALL; i++) insert.run(`run-${n++}`, '{"n":1}');
    },
  ];
}

/**
 * The pages in a SQLite file's write-ahead log, frame by frame, read as SQLite wrote it: each frame is a
 * page, and a frame that carries the database size ends a commit. Frames of an earlier generation of the
 * log (other salts) are left out, so the count holds until a checkpoint restarts the log.
 */
function walFrames(path: string): { page: number; commit: boolean }[] {
  const wal = `${path}-wal`;
  const fd = openSync(wal, 'r');
  try {
    const header = Buffer.alloc(32);
    readSync(fd, header, 0, 32, 0);
    const [pageSize, salt1, salt2] = [header.readUInt32BE(8), header.readUInt32BE(16), header.readUInt32BE(20)];
    const size = statSync(wal).size;
    const frame = Buffer.alloc(24);
    const frames: { page: number; commit: boolean }[] = [];
    for (let at = 32; at + 24 + pageSize <= size; at += 24 + pageSize) {
      readSync(fd, frame, 0, 24, at);
      if (frame.readUInt32BE(8) !== salt1 || frame.readUInt32BE(12) !== salt2) break;
      frames.push({ page: frame.readUInt32BE(0), commit: frame.readUInt32BE(4) !== 0 });
    }
    return frames;
  } finally {
    closeSync(fd);
  }
}

/** Which b-tree (table or index, "(interior)" for its inner pages) each page of a SQLite file belongs to. */
function treeOfPage(path: string): Map<number, string> {
  const db = new Database(path, { readonly: true });
  try {
    const rows = db.prepare('SELECT pageno, name, pagetype FROM dbstat').all() as {
      pageno: number;
      name: string;
      pagetype: string;
    }[];
    return new Map(rows.map((row) => [row.pageno, row.pagetype === 'internal' ? `${row.name} (interior)` : row.name]));
  } finally {
    db.close();
  }
}

/**
 * What a turn writes to the log, counted on a new file: a commit's cost follows the pages it appends. Ten
 * turns after a first one, under SQLite's own checkpoint mark (1 000 pages) and before the store's
 * checkpoint thread starts (500 commits), so no checkpoint restarts the log meanwhile.
 */
async function pagesPerTurn(): Promise<void> {
  const path = join(dir, 'pages.db');
  const [wardrik, turn] = await service(`sqlite:${path}`);
  try {
    await turn();
    const before = walFrames(path).length;
    for (let i = 0; i < 10; i++) await turn();
    const frames = walFrames(path).slice(before);
    const pages = frames.length / 10;
    const commits = frames.filter((frame) => frame.commit).length / 10;
    console.log(
      `\nSQLite log per ${CALLS}-call turn: ${pages.toFixed(1)} pages in ${commits.toFixed(1)} commits (${(pages / commits).toFixed(2)} pages a commit)`,
    );
    // Where those pages go: page 1 is the file's header (its size, rewritten when the file grows).
    const trees = treeOfPage(path);
    const byTree = new Map<string, number>();
    for (const { page } of frames) {
      const tree = page === 1 ? 'page 1 (header)' : (trees.get(page) ?? `page ${page}`);
      byTree.set(tree, (byTree.get(tree) ?? 0) + 1);
    }
    const shares = [...byTree].sort((a, b) => b[1] - a[1]).map(([tree, n]) => `${tree} ${(n / 10).toFixed(1)}`);
    console.log(`  by b-tree: ${shares.join(', ')}`);
  } finally {
    await wardrik.close();
  }
}

interface Pass {
  readonly memory: number;
  readonly sqlite: number;
  /** The same turn on the better-sqlite3 driver. */
  readonly better: number;
  /** The 40 raw commits, in ns. */
  readonly raw: number;
}

await pagesPerTurn();
const [memory, memoryTurn] = await service('memory:');
const [sqlite, sqliteTurn] = await service(`sqlite:${join(dir, 'service.db')}`);
const [better, betterTurn] = await service(`sqlite:${join(dir, 'service-better.db')}?driver=better-sqlite3`);
const [raw, rawTurn] = rawCommits();
try {
  for (let turn = 0; turn < WARM_UP_TURNS; turn++) {
    await memoryTurn();
    await sqliteTurn();
    await betterTurn();
    rawTurn();
  }
  const passes: Pass[] = [];
  for (let pass = 0; pass < PASSES; pass++) {
    const [m, s, b, r] = await measureInTurns(
      [
        { name: 'memory', op: memoryTurn },
        { name: 'sqlite', op: sqliteTurn },
        { name: 'better-sqlite3', op: betterTurn },
        { name: 'raw', op: rawTurn },
      ],
      { rounds: 11, perRound: 20 },
    );
    passes.push({ memory: m!.ns, sqlite: s!.ns, better: b!.ns, raw: r!.ns });
  }
  const perCall = (ns: number): string => format(ns / CALLS).padStart(10);
  const limitOf = (pass: Pass): number => pass.memory + pass.raw;
  const mid = (pick: (pass: Pass) => number): number => median(passes.map(pick));
  console.log(
    `\nA new agent a request, ${CALLS}-call turns, per tool call (medians of ${PASSES} passes, each measured in turns)`,
  );
  console.log(`  Wardrik, memory store                 ${perCall(mid((p) => p.memory))}`);
  console.log(`  Wardrik, SQLite normal                ${perCall(mid((p) => p.sqlite))}`);
  console.log(`  Wardrik, SQLite normal, better-sqlite3 ${perCall(mid((p) => p.better))}`);
  console.log(
    `  raw insert-and-commit (one)           ${format(mid((p) => p.raw) / (CALLS * RAW_PER_CALL)).padStart(10)}`,
  );
  console.log(`  limit: memory + ${RAW_PER_CALL} raw commits        ${perCall(mid(limitOf))}`);
  const ratios = passes.map((pass) => pass.sqlite / limitOf(pass));
  const verdict = median(ratios);
  console.log(
    `  SQLite against the limit, each pass: ${passes.map((pass, i) => `${perCall(pass.sqlite).trim()} / ${perCall(limitOf(pass)).trim()} = ${ratios[i]!.toFixed(2)}x`).join('; ')}`,
  );
  console.log(`    median ${verdict.toFixed(2)}x the limit  target ≤ 1: ${verdict <= 1 ? 'met' : 'MISSED'}`);
  console.log(
    `    journal's share per call, each pass: ${passes.map((pass) => ((pass.sqlite - pass.memory) / (pass.raw / (CALLS * RAW_PER_CALL)) / CALLS).toFixed(1)).join(', ')} raw commits`,
  );
  const betterRatios = passes.map((pass) => pass.better / limitOf(pass));
  console.log(
    `  better-sqlite3 against the limit, each pass: ${betterRatios.map((ratio) => `${ratio.toFixed(2)}x`).join('; ')}; median ${median(betterRatios).toFixed(2)}x`,
  );
  console.log(
    `  node:sqlite against better-sqlite3, a turn, each pass: ${passes.map((pass) => (pass.sqlite / pass.better).toFixed(2)).join(', ')}; median ${median(passes.map((pass) => pass.sqlite / pass.better)).toFixed(2)}x`,
  );
} finally {
  await memory.close();
  await sqlite.close();
  await better.close();
  raw.close();
  rmSync(dir, { recursive: true, force: true });
}
