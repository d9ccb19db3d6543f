// A fresh process's first turn for an agent with a long history: the conversation is read from the
// agent's last `historyTurns` finished turns. Target: the first send with 100 000 stored turns within
// 2x of the first send with 100, on SQLite. Each sample is a new Wardrik on the same file (what a
// restarted process does), timed from `send` to its answer; the median of the samples is reported.
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Wardrik } from '../src/index.js';
import { scriptedModel } from '../src/testing/index.js';
import { format, median, report, type Timing } from './lib.js';

const dir = mkdtempSync(join(tmpdir(), 'wardrik-history-'));

/** A SQLite file holding `count` finished turns of agent `a`, each with its steps, copied from a real turn. */
async function fileWithTurns(count: number): Promise<string> {
  const path = join(dir, `turns-${count}.db`);
  const seed = await Wardrik.create({ store: `sqlite:${path}`, recoverMs: Infinity });
  const first = await seed.startAgent({ id: 'a', model: scriptedModel([{ text: 'Hello.' }]), tools: [] }).send('Hi.');
  await seed.close();
  // Copies of that turn and its steps, made by SQLite itself in one transaction (fast to set up).
  const db = new Database(path);
  const copies = `WITH RECURSIVE n (i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${count - 1})`;
  db.transaction(() => {
    db.prepare(
      `${copies} INSERT INTO wardrik_turns (run, agent, status, version, data, created_at, updated_at)
      SELECT t.run || '-' || i, agent, status, version, data, created_at + i, updated_at + i FROM n, wardrik_turns t WHERE t.run = ?`,
    ).run(first.run);
    // Each copy's run gets its number, then its steps the rows of that number (schema 9).
    db.prepare(`${copies} INSERT INTO wardrik_step_runs (run) SELECT ? || '-' || i FROM n`).run(first.run);
    db.prepare(
      `INSERT INTO wardrik_steps (id, data, created_at)
      SELECT (c.no << 32) + (s.id & 4294967295), s.data, s.created_at + c.no - r.no
      FROM wardrik_step_runs r, wardrik_steps s, wardrik_step_runs c
      WHERE r.run = ? AND s.id >= r.no << 32 AND s.id < (r.no + 1) << 32 AND c.run LIKE ? || '-%'`,
    ).run(first.run, first.run);
  })();
  db.close();
  return path;
}

async function firstSend(path: string, samples: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const wardrik = await Wardrik.create({
      store: `sqlite:${path}`,
      recoverMs: Infinity,
      retention: { finishedAfterMs: Infinity },
    });
    const agent = wardrik.startAgent({ id: 'a', model: scriptedModel([{ text: 'Again.' }]), tools: [] });
    const start = process.hrtime.bigint();
    const result = await agent.send('Hi again.');
    times.push(Number(process.hrtime.bigint() - start));
    if (result.status !== 'done') throw new Error(`the turn ended ${result.status}: ${result.error}`);
    await wardrik.close();
  }
  return median(times);
}

try {
  const started = Date.now();
  const small = await fileWithTurns(100);
  const large = await fileWithTurns(100_000);
  console.log(`  (stored 100 and 100 000 turns in ${((Date.now() - started) / 1000).toFixed(1)} s)`);
  await firstSend(small, 3); // warm-up
  const timings: Timing[] = [];
  // Alternating, so a slow spell of the machine falls on both.
  const smallTimes: number[] = [];
  const largeTimes: number[] = [];
  for (let round = 0; round < 5; round++) {
    smallTimes.push(await firstSend(small, 3));
    largeTimes.push(await firstSend(large, 3));
  }
  timings.push({ name: 'first send, 100 stored turns (SQLite)', ns: median(smallTimes) });
  timings.push({ name: 'first send, 100 000 stored turns (SQLite)', ns: median(largeTimes) });
  report("A fresh process's first turn for an agent with a long history", timings[0]!, [
    { timing: timings[1]!, target: 2 },
  ]);
  console.log(`  100 turns: ${format(timings[0]!.ns)}; 100 000 turns: ${format(timings[1]!.ns)}.`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
