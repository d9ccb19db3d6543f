import 'reflect-metadata';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { StoreError } from '../../src/errors.js';
import { defineTool, Tokens, Wardrik } from '../../src/index.js';
import { newRunId } from '../../src/run-ids.js';
import { SqliteStore } from '../../src/store/sqlite-store.js';
import type { JournalWrite } from '../../src/store/store.js';
import { walFrames } from './commit-counters.js';
import { settableClock, storeContract } from '../../src/testing/index.js';
import {
  addLabels,
  addSpend,
  appendStep,
  leaseRun,
  releaseRun,
  writeCall,
  writeTurn,
} from '../../src/store/journal-writes.js';

const dir = mkdtempSync(join(tmpdir(), 'wardrik-sqlite-'));
after(() => rmSync(dir, { recursive: true, force: true }));

// One file for the whole contract: each test opens its own connection to it, as a restarted process would.
const time = settableClock();
storeContract(
  'SqliteStore',
  async () => new SqliteStore({ path: join(dir, 'contract', 'wardrik.db'), clock: time.clock }),
  { durable: true, synchronous: true, clock: time.contract },
);
storeContract(
  'SqliteStore with synchronous=full',
  async () => new SqliteStore({ path: join(dir, 'full.db'), synchronous: 'full', clock: time.clock }),
  { durable: true, synchronous: true, clock: time.contract },
);
// The default is Node's own node:sqlite; the same contract on the other driver, over a file of its own.
storeContract(
  'SqliteStore on better-sqlite3',
  async () => new SqliteStore({ path: join(dir, 'better', 'wardrik.db'), driver: 'better-sqlite3', clock: time.clock }),
  { durable: true, synchronous: true, clock: time.contract },
);

/** Undoes migration 15: what a version-14 Wardrik left (no column for what decided a call). */
const TO_VERSION_14 = `ALTER TABLE calls DROP COLUMN decided_by; DELETE FROM wardrik_migrations WHERE version >= 15;`;

/** Undoes migrations 15 and 14, keeping the run numbers: what a version-13 Wardrik left (run numbers in a rowid table beside the index of their run). */
const TO_VERSION_13 = `${TO_VERSION_14} CREATE TABLE wardrik_step_runs_rowid (no INTEGER PRIMARY KEY, run TEXT NOT NULL UNIQUE);
  INSERT INTO wardrik_step_runs_rowid (no, run) SELECT no, run FROM wardrik_step_runs;
  DROP TABLE wardrik_step_runs; ALTER TABLE wardrik_step_runs_rowid RENAME TO wardrik_step_runs;
  DELETE FROM wardrik_migrations WHERE version >= 14;`;

/** Undoes migrations 14 and 13 on a new file: what a version-12 Wardrik left (labels in an AUTOINCREMENT table beside their key's index). */
const TO_VERSION_12 = `${TO_VERSION_13} DROP TABLE labels;
  CREATE TABLE labels (seq INTEGER PRIMARY KEY AUTOINCREMENT, run TEXT NOT NULL, label TEXT NOT NULL, UNIQUE (run, label));
  DELETE FROM wardrik_migrations WHERE version >= 13;`;

/** Undoes migrations 13 to 11 on a new file: what a version-10 Wardrik left (an index of finished turns by time). */
const TO_VERSION_10 = `${TO_VERSION_12} DROP TABLE wardrik_audit; CREATE INDEX wardrik_turns_finished_at ON wardrik_turns (updated_at) WHERE status IN ('done', 'failed', 'budget_spent');
  DELETE FROM wardrik_migrations WHERE version >= 11;`;

/** Undoes migrations 11 and 10 on a new file: what a version-9 Wardrik left (calls_waiting over started and parked calls, turns by agent). */
const TO_VERSION_9 = `${TO_VERSION_10} DROP TABLE wardrik_started_runs; DROP INDEX calls_parked;
  CREATE INDEX calls_waiting ON calls (state, updated_at) WHERE state IN ('started', 'parked');
  CREATE INDEX wardrik_turns_by_agent ON wardrik_turns (agent, created_at);
  DELETE FROM wardrik_migrations WHERE version >= 10;`;

/** Undoes migrations 10 and 9 on a new file: what a version-8 Wardrik left (steps keyed by run and index, WITHOUT ROWID). */
const TO_VERSION_8 = `${TO_VERSION_9} DROP TABLE wardrik_steps; DROP TABLE wardrik_step_runs;
  CREATE TABLE wardrik_steps (run TEXT NOT NULL, idx INTEGER NOT NULL, data TEXT, created_at REAL NOT NULL, PRIMARY KEY (run, idx)) WITHOUT ROWID;
  DELETE FROM wardrik_migrations WHERE version >= 9;`;

/** Undoes migrations 9 and 8 on a new file: what a version-7 Wardrik left (leases in a rowid table and its key's index). */
const TO_VERSION_7 = `${TO_VERSION_8} DROP TABLE wardrik_leases;
  CREATE TABLE wardrik_leases (run TEXT PRIMARY KEY, node TEXT NOT NULL, until REAL NOT NULL);
  DELETE FROM wardrik_migrations WHERE version >= 8;`;

/** Undoes migrations 9 to 7 on a new file: what a version-6 Wardrik left (calls_by_state over every call). */
const TO_VERSION_6 = `${TO_VERSION_7} DROP INDEX calls_waiting;
  CREATE INDEX calls_by_state ON calls (state, updated_at);
  DELETE FROM wardrik_migrations WHERE version >= 7;`;

/** Undoes migrations 9 to 6 on a new file: what a version-5 Wardrik left (calls_by_run, steps in a rowid table). */
const TO_VERSION_5 = `${TO_VERSION_6} CREATE INDEX calls_by_run ON calls (run);
  DROP TABLE wardrik_steps;
  CREATE TABLE wardrik_steps (run TEXT NOT NULL, idx INTEGER NOT NULL, data TEXT, created_at REAL NOT NULL, PRIMARY KEY (run, idx));
  DELETE FROM wardrik_migrations WHERE version >= 6;`;

/** Undoes migrations 9 to 4 on a new file: what a version-3 Wardrik left (money in dollars, no claims or holds). */
const TO_VERSION_3 = `${TO_VERSION_5} DROP INDEX wardrik_turns_finished; DROP INDEX wardrik_turns_finished_at; DROP INDEX inbox_by_run;
  DROP TABLE wardrik_remembered_claims; DROP TABLE wardrik_spend_holds; DROP TABLE wardrik_tool_costs;
  ALTER TABLE spend ADD COLUMN usd REAL NOT NULL DEFAULT 0; ALTER TABLE spend DROP COLUMN micro_usd;
  ALTER TABLE calls ADD COLUMN cost_usd REAL; ALTER TABLE calls DROP COLUMN cost_micro_usd;
  DELETE FROM wardrik_migrations WHERE version >= 4;`;

describe('SqliteStore', () => {
  describe('when it opens a file', () => {
    it('creates the missing directories, in WAL mode, with synchronous NORMAL by default', async () => {
      const path = join(dir, 'a', 'b', 'c.db');
      await new SqliteStore({ path }).close();
      const db = new Database(path, { readonly: true });
      try {
        assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
        assert.deepEqual(db.prepare('SELECT version FROM wardrik_migrations ORDER BY version').all(), [
          { version: 1 },
          { version: 2 },
          { version: 3 },
          { version: 4 },
          { version: 5 },
          { version: 6 },
          { version: 7 },
          { version: 8 },
          { version: 9 },
          { version: 10 },
          { version: 11 },
          { version: 12 },
          { version: 13 },
          { version: 14 },
          { version: 15 },
        ]);
      } finally {
        db.close();
      }
      const store = new SqliteStore({ path });
      assert.equal(store.synchronous, 'normal');
      await store.close();
    });

    it('makes a new file with 2 KiB pages, and keeps the pages of a file that exists', async () => {
      const fresh = join(dir, 'pages-new.db');
      await new SqliteStore({ path: fresh }).close();
      const older = join(dir, 'pages-4k.db');
      const made = new Database(older);
      made.pragma('page_size = 4096');
      made.pragma('journal_mode = WAL');
      made.exec('CREATE TABLE mine (x)');
      made.close();
      const store = new SqliteStore({ path: older });
      try {
        await leaseRun(store, 'run-1', 'node-a', 60_000);
        assert.equal(await leaseRun(store, 'run-1', 'node-b', 60_000), false);
      } finally {
        await store.close();
      }
      for (const [path, bytes] of [
        [fresh, 2048],
        [older, 4096],
      ] as const) {
        const db = new Database(path, { readonly: true });
        try {
          assert.equal(db.pragma('page_size', { simple: true }), bytes, path);
        } finally {
          db.close();
        }
      }
    });

    it('syncs every commit when asked for synchronous FULL', async () => {
      const store = new SqliteStore({ path: join(dir, 'sync-full.db'), synchronous: 'full' });
      try {
        assert.equal(store.synchronous, 'full');
      } finally {
        await store.close();
      }
    });

    it('migrates once, however many times it is opened', async () => {
      const path = join(dir, 'twice.db');
      await new SqliteStore({ path }).close();
      await new SqliteStore({ path }).close();
      const db = new Database(path, { readonly: true });
      try {
        assert.deepEqual(db.prepare('SELECT version FROM wardrik_migrations ORDER BY version').all(), [
          { version: 1 },
          { version: 2 },
          { version: 3 },
          { version: 4 },
          { version: 5 },
          { version: 6 },
          { version: 7 },
          { version: 8 },
          { version: 9 },
          { version: 10 },
          { version: 11 },
          { version: 12 },
          { version: 13 },
          { version: 14 },
          { version: 15 },
        ]);
      } finally {
        db.close();
      }
    });

    it('refuses an old file opened read-only, saying to open it once writable', async () => {
      const older = join(dir, 'older.db');
      await new SqliteStore({ path: older }).close();
      const old = new Database(older);
      old.prepare('DELETE FROM wardrik_migrations WHERE version >= 4').run();
      old.close();
      assert.throws(
        () => new SqliteStore({ path: older, readonly: true }),
        /version 3, older than this Wardrik needs \(15\).*Fix: open it once without the readonly option/,
      );
    });

    it('upgrades a version-3 file, turning its dollars into micro-dollars', async () => {
      const path = join(dir, 'v3.db');
      await new SqliteStore({ path }).close();
      const db = new Database(path);
      db.exec(`${TO_VERSION_3}
               INSERT INTO spend (agent, usd) VALUES ('a', 0.30000000000000004);
               INSERT INTO calls (run, call, agent, tool, arguments, idempotency_key, state, attempt, updated_at, cost_usd)
                 VALUES ('run-1', 'c1', 'a', 't/x', '{}', 'k', 'succeeded', 1, 1, 0.1);`);
      db.close();
      const store = new SqliteStore({ path });
      try {
        assert.equal(await store.getSpend('a'), 300_000);
        assert.equal(await addSpend(store, 'a', 700_000), 1_000_000);
        assert.equal((await store.getCall('run-1', 'c1'))?.costUsd, 0.1);
        assert.deepEqual((await store.listRuns({ agent: 'a' }))[0]?.costUsd, 0.1);
      } finally {
        await store.close();
      }
    });

    it('upgrades a version-14 file: its calls read with what decided them unknown, a parked one keeps the rule that asked', async () => {
      const path = join(dir, 'decided-v14.db');
      await new SqliteStore({ path }).close();
      const db = new Database(path);
      try {
        db.exec(TO_VERSION_14);
        const add = db.prepare(
          `INSERT INTO calls (run, call, agent, tool, arguments, idempotency_key, state, attempt, answer, inbox_id, updated_at)
           VALUES ('run-1', ?, 'a', 't/x', '{}', ?, ?, 1, ?, ?, 1)`,
        );
        add.run('done', 'run-1:done', 'succeeded', '{"format":1,"status":"ok","output":1,"labels":[]}', null);
        // A version-14 Wardrik kept the rule that asked in the parked answer's approval.
        add.run(
          'asked',
          'run-1:asked',
          'parked',
          '{"format":1,"status":"parked","kind":"approval","inboxId":"i1","reason":"why","labels":[],"approval":{"requester":"dana","decidedBy":"rule 2 (t/* ask)"}}',
          'i1',
        );
      } finally {
        db.close();
      }
      const store = new SqliteStore({ path });
      try {
        const done = await store.getCall('run-1', 'done');
        assert.equal(done !== undefined && 'decidedBy' in done, false, 'unknown: journaled before Wardrik kept it');
        const asked = await store.getCall('run-1', 'asked');
        assert.equal(asked?.decidedBy, 'rule 2 (t/* ask)');
        assert.deepEqual(asked?.answer?.status === 'parked' ? asked.answer.approval : undefined, { requester: 'dana' });
        const decided = { ...done!, call: 'new', idempotencyKey: 'run-1:new', decidedBy: 'rule 1 (t/* allow)' };
        assert.equal(await writeCall(store, decided, undefined), true);
        assert.deepEqual(await store.getCall('run-1', 'new'), decided);
      } finally {
        await store.close();
      }
    });

    it('upgrades a version-13 file, keeping its run numbers: steps read as before, a new run numbered after them', async () => {
      const path = join(dir, 'step-runs-v13.db');
      const step = (run: string, index: number) => ({
        run,
        index,
        data: { text: `${run} ${index}` },
        createdAt: index,
      });
      const older = new SqliteStore({ path });
      try {
        for (const [run, index] of [
          ['run-a', 0],
          ['run-b', 0],
          ['run-a', 1],
          ['run-b', 1],
        ] as const)
          assert.equal(await appendStep(older, step(run, index)), true);
      } finally {
        await older.close();
      }
      const db = new Database(path);
      try {
        db.exec(TO_VERSION_13);
      } finally {
        db.close();
      }
      const store = new SqliteStore({ path });
      try {
        assert.equal(await appendStep(store, step('run-c', 0)), true);
        assert.equal(await appendStep(store, step('run-a', 2)), true);
        assert.equal(await appendStep(store, step('run-a', 2)), false);
        for (const [run, count] of [
          ['run-a', 3],
          ['run-b', 2],
          ['run-c', 1],
        ] as const)
          assert.deepEqual(
            (await store.listSteps(run)).map((read) => read.data),
            Array.from({ length: count }, (_, index) => ({ text: `${run} ${index}` })),
          );
      } finally {
        await store.close();
      }
      const upgraded = new Database(path, { readonly: true });
      try {
        assert.deepEqual(upgraded.prepare('SELECT run, no FROM wardrik_step_runs ORDER BY no').all(), [
          { run: 'run-a', no: 1 },
          { run: 'run-b', no: 2 },
          { run: 'run-c', no: 3 },
        ]);
        const table = upgraded.prepare(`SELECT sql FROM sqlite_master WHERE name = 'wardrik_step_runs'`).get();
        assert.match((table as { sql: string }).sql, /WITHOUT ROWID/);
      } finally {
        upgraded.close();
      }
    });

    it("upgrades a version-12 file, keeping each run's labels in the order first written; new ones follow them", async () => {
      const path = join(dir, 'labels-v12.db');
      await new SqliteStore({ path }).close();
      const db = new Database(path);
      try {
        db.exec(TO_VERSION_12);
        // The old table's seq is one sequence over every run: a's labels are 1 and 3, b's is 2.
        const add = db.prepare('INSERT INTO labels (run, label) VALUES (?, ?)');
        for (const [run, label] of [
          ['run-a', 'pii'],
          ['run-b', 'outside'],
          ['run-a', 'external'],
        ])
          add.run(run, label);
      } finally {
        db.close();
      }
      const store = new SqliteStore({ path });
      try {
        assert.deepEqual(await store.getLabels('run-a'), ['pii', 'external']);
        assert.deepEqual(await store.getLabels('run-b'), ['outside']);
        assert.deepEqual(await addLabels(store, 'run-a', ['external', 'secret', 'outside']), ['secret', 'outside']);
        assert.deepEqual(await store.getLabels('run-a'), ['pii', 'external', 'secret', 'outside']);
        assert.deepEqual(await store.getLabels('run-b'), ['outside']);
      } finally {
        await store.close();
      }
      const upgraded = new Database(path, { readonly: true });
      try {
        const table = upgraded.prepare(`SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'labels'`).get();
        assert.match((table as { sql: string }).sql, /WITHOUT ROWID/);
        assert.deepEqual(upgraded.prepare(`SELECT name FROM sqlite_sequence WHERE name = 'labels'`).all(), []);
        assert.deepEqual(upgraded.prepare('SELECT max(version) AS version FROM wardrik_migrations').get(), {
          version: 15,
        });
      } finally {
        upgraded.close();
      }
    });

    it('upgrades a version-10 file, dropping the index of finished turns by time; retention still finds them', async () => {
      const path = join(dir, 'v10.db');
      const turn = (run: string, status: 'running' | 'done', updatedAt: number) => ({
        run,
        agent: 'a',
        status,
        version: 0,
        data: { run },
        createdAt: updatedAt,
        updatedAt,
      });
      const written = new SqliteStore({ path });
      await writeTurn(written, turn('run-old', 'done', 10), undefined);
      await writeTurn(written, turn('run-young', 'done', 500), undefined);
      await writeTurn(written, turn('run-going', 'running', 5), undefined);
      await written.close();
      const db = new Database(path);
      db.exec(TO_VERSION_10);
      db.close();
      const store = new SqliteStore({ path });
      try {
        assert.deepEqual(
          (await store.lastFinishedTurns('a', 5)).map((record) => record.run),
          ['run-old', 'run-young'],
        );
        assert.deepEqual(await store.prune({ before: 100 }), {
          runs: 1,
          turns: 1,
          steps: 0,
          calls: 0,
          inbox: 0,
          labels: 0,
          leases: 0,
          holds: 0,
        });
        assert.equal(await store.getTurn('run-old'), undefined);
        assert.equal((await store.getTurn('run-going'))?.status, 'running');
      } finally {
        await store.close();
      }
      const upgraded = new Database(path, { readonly: true });
      try {
        const indexes = upgraded.prepare(
          `SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'wardrik_turns'`,
        );
        assert.ok(!(indexes.all() as { name: string }[]).some((row) => row.name === 'wardrik_turns_finished_at'));
        assert.deepEqual(upgraded.prepare('SELECT max(version) AS version FROM wardrik_migrations').get(), {
          version: 15,
        });
      } finally {
        upgraded.close();
      }
    });

    it('upgrades a version-8 file, numbering its runs and keeping their steps readable, in order, written once, and pruned', async () => {
      const path = join(dir, 'v8.db');
      await new SqliteStore({ path }).close();
      const db = new Database(path);
      db.exec(`${TO_VERSION_8}
               INSERT INTO wardrik_steps (run, idx, data, created_at) VALUES
                 ('old', 1, '{"kind":"tools"}', 2), ('old', 0, '{"kind":"model"}', 1), ('busy', 0, '"model step"', 3), ('busy', 12, NULL, 4);
               INSERT INTO wardrik_turns (run, agent, status, version, data, created_at, updated_at) VALUES
                 ('old', 'a', 'done', 1, '{}', 1, 2), ('busy', 'a', 'running', 0, '{}', 3, 4);`);
      db.close();
      const store = new SqliteStore({ path });
      try {
        assert.deepEqual(await store.listSteps('old'), [
          { run: 'old', index: 0, data: { kind: 'model' }, createdAt: 1 },
          { run: 'old', index: 1, data: { kind: 'tools' }, createdAt: 2 },
        ]);
        assert.deepEqual(await store.listSteps('busy'), [
          { run: 'busy', index: 0, data: 'model step', createdAt: 3 },
          { run: 'busy', index: 12, data: undefined, createdAt: 4 },
        ]);
        assert.equal(
          await appendStep(store, { run: 'busy', index: 12, data: 'again', createdAt: 5 }),
          false,
          'a step is still written once',
        );
        assert.equal(await appendStep(store, { run: 'busy', index: 1, data: 'tools step', createdAt: 5 }), true);
        assert.equal(await appendStep(store, { run: 'new', index: 0, data: 'first', createdAt: 6 }), true);
        assert.deepEqual(
          (await store.listSteps('busy')).map((step) => step.index),
          [0, 1, 12],
        );
        assert.deepEqual(
          (await store.listSteps('new')).map((step) => step.data),
          ['first'],
        );
        const report = await store.prune({ before: 10 });
        assert.deepEqual([report.runs, report.steps], [1, 2], 'retention deletes the finished run and its steps');
        assert.deepEqual(await store.listSteps('old'), []);
        assert.equal((await store.listSteps('busy')).length, 3);
        // A run that comes after one pruned starts with no steps of its own, whatever number it gets.
        assert.deepEqual(await store.listSteps('later'), []);
        assert.equal(await appendStep(store, { run: 'later', index: 0, data: 'later', createdAt: 7 }), true);
        assert.deepEqual(
          (await store.listSteps('later')).map((step) => step.data),
          ['later'],
        );
      } finally {
        await store.close();
      }
    });

    it('upgrades a version-7 file, keeping its leases in the keyed table', async () => {
      const path = join(dir, 'v7.db');
      await new SqliteStore({ path }).close();
      const db = new Database(path);
      db.exec(`${TO_VERSION_7}
               INSERT INTO wardrik_leases (run, node, until) VALUES ('held', 'node-a', 5000), ('lapsed', 'node-a', 10);`);
      db.close();
      // The host's clock at 1 000, as when the leases above were written.
      const store = new SqliteStore({ path, clock: { now: () => 1_000 } });
      try {
        assert.equal(
          await leaseRun(store, 'held', 'node-b', 100),
          false,
          'a lease held before the upgrade still holds',
        );
        assert.equal(await leaseRun(store, 'held', 'node-a', 100), true, 'its holder renews it');
        assert.equal(await leaseRun(store, 'lapsed', 'node-b', 100), true, 'a lapsed one may be taken');
        await releaseRun(store, 'held', 'node-a');
        assert.equal(await leaseRun(store, 'held', 'node-b', 100), true, 'a released one may be taken');
        assert.equal((await store.prune({ before: 2_000 })).leases, 2, 'retention finds the lapsed leases');
      } finally {
        await store.close();
      }
      const check = new Database(path, { readonly: true });
      try {
        const table = check.prepare(`SELECT sql FROM sqlite_master WHERE name = 'wardrik_leases'`).get() as {
          sql: string;
        };
        assert.match(table.sql, /WITHOUT ROWID/);
        assert.deepEqual(
          check.prepare(`SELECT name FROM sqlite_master WHERE tbl_name = 'wardrik_leases' AND type = 'index'`).all(),
          [],
        );
      } finally {
        check.close();
      }
    });

    it('upgrades a version-6 file: calls_by_state holds only waiting calls, and retention still finds old runs of calls only', async () => {
      const path = join(dir, 'v6.db');
      await new SqliteStore({ path }).close();
      const db = new Database(path);
      db.exec(`${TO_VERSION_6}
               INSERT INTO calls (run, call, agent, tool, arguments, idempotency_key, state, attempt, updated_at)
                 VALUES ('old', 'c1', 'a', 't/x', '{}', 'k1', 'succeeded', 1, 1), ('busy', 'c1', 'a', 't/x', '{}', 'k2', 'started', 1, 2),
                        ('waits', 'c1', 'a', 't/x', '{}', 'k3', 'parked', 1, 3), ('young', 'c1', 'a', 't/x', '{}', 'k4', 'failed', 1, 50);`);
      db.close();
      const store = new SqliteStore({ path });
      try {
        assert.deepEqual(
          (await store.listCalls({ state: 'started' })).map((call) => call.run),
          ['busy'],
        );
        assert.deepEqual(
          (await store.listCalls({ state: 'parked' })).map((call) => call.run),
          ['waits'],
        );
        assert.deepEqual(
          (await store.listCalls({ state: 'failed' })).map((call) => call.run),
          ['young'],
        );
        const report = await store.prune({ before: 10 });
        assert.equal(report.runs, 1);
        assert.equal(await store.getCall('old', 'c1'), undefined);
        assert.equal(
          (await store.listCalls({ run: 'busy' })).length + (await store.listCalls({ run: 'waits' })).length,
          2,
        );
      } finally {
        await store.close();
      }
      const check = new Database(path, { readonly: true });
      try {
        const indexes = check
          .prepare(
            `SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'calls' AND sql IS NOT NULL`,
          )
          .all() as { name: string; sql: string }[];
        // Migration 10 then leaves only the parked calls in an index, and counts the started ones by run.
        assert.deepEqual(
          indexes.map((index) => index.name),
          ['calls_parked'],
        );
        assert.match(indexes[0]!.sql, /WHERE state = 'parked'/);
        assert.deepEqual(check.prepare('SELECT run, calls FROM wardrik_started_runs').all(), [
          { run: 'busy', calls: 1 },
        ]);
      } finally {
        check.close();
      }
    });

    it('upgrades a version-5 file, keeping its steps and dropping calls_by_run', async () => {
      const path = join(dir, 'v5.db');
      await new SqliteStore({ path }).close();
      const db = new Database(path);
      db.exec(`${TO_VERSION_5}
               INSERT INTO wardrik_steps (run, idx, data, created_at) VALUES ('run-1', 1, '{"kind":"tools"}', 2), ('run-1', 0, '{"kind":"model"}', 1);
               INSERT INTO calls (run, call, agent, tool, arguments, idempotency_key, state, attempt, updated_at)
                 VALUES ('run-1', 'c2', 'a', 't/x', '{}', 'k2', 'succeeded', 1, 1), ('run-1', 'c1', 'a', 't/x', '{}', 'k1', 'started', 1, 2);`);
      db.close();
      const store = new SqliteStore({ path });
      try {
        assert.deepEqual(await store.listSteps('run-1'), [
          { run: 'run-1', index: 0, data: { kind: 'model' }, createdAt: 1 },
          { run: 'run-1', index: 1, data: { kind: 'tools' }, createdAt: 2 },
        ]);
        assert.equal(
          await appendStep(store, { run: 'run-1', index: 1, data: {}, createdAt: 3 }),
          false,
          'a step is still written once',
        );
        // A run's timeline keeps the order first written, without the index it used to come through.
        assert.deepEqual(
          (await store.listCalls({ run: 'run-1' })).map((call) => call.call),
          ['c2', 'c1'],
        );
        assert.deepEqual(
          (await store.listCalls({ run: 'run-1', state: 'started' })).map((call) => call.call),
          ['c1'],
        );
      } finally {
        await store.close();
      }
      const check = new Database(path, { readonly: true });
      try {
        const schema = check
          .prepare(`SELECT name, sql FROM sqlite_master WHERE name IN ('wardrik_steps', 'calls_by_run')`)
          .all() as { name: string; sql: string }[];
        assert.deepEqual(
          schema.map((row) => row.name),
          ['wardrik_steps'],
        );
      } finally {
        check.close();
      }
    });

    it('upgrades a version-1 file to the current version, keeping its data', async () => {
      const path = join(dir, 'v1.db');
      await new SqliteStore({ path }).close();
      // What a version-1 Wardrik left: migrations 2 to 4 (tables, columns, an index) absent and unrecorded.
      const db = new Database(path);
      db.exec(`${TO_VERSION_3}
               DROP TABLE wardrik_leases; DROP TABLE wardrik_turns; DROP TABLE wardrik_steps; DROP TABLE wardrik_mcp_servers;
               DROP INDEX calls_by_run; ALTER TABLE calls DROP COLUMN cost_usd;
               DELETE FROM wardrik_migrations WHERE version >= 2;
               INSERT INTO spend (agent, usd) VALUES ('a', 1.5);`);
      db.close();
      const store = new SqliteStore({ path });
      try {
        assert.equal(await store.getSpend('a'), 1_500_000);
        assert.equal(await leaseRun(store, 'run-1', 'node-a', 100), true);
        const record = {
          run: 'run-1',
          call: 'c1',
          agent: 'a',
          tool: 't/x',
          arguments: {},
          idempotencyKey: 'k',
          state: 'started' as const,
          attempt: 1,
          costUsd: 0.5,
          updatedAt: 1,
        };
        assert.equal(await writeCall(store, record, undefined), true);
        assert.deepEqual(await store.listCalls({ run: 'run-1' }), [record]);
      } finally {
        await store.close();
      }
      const check = new Database(path, { readonly: true });
      try {
        assert.deepEqual(check.prepare('SELECT version FROM wardrik_migrations ORDER BY version').all(), [
          { version: 1 },
          { version: 2 },
          { version: 3 },
          { version: 4 },
          { version: 5 },
          { version: 6 },
          { version: 7 },
          { version: 8 },
          { version: 9 },
          { version: 10 },
          { version: 11 },
          { version: 12 },
          { version: 13 },
          { version: 14 },
          { version: 15 },
        ]);
      } finally {
        check.close();
      }
    });

    it('refuses a file written by a newer Wardrik, saying to upgrade', async () => {
      const path = join(dir, 'newer.db');
      await new SqliteStore({ path }).close();
      const db = new Database(path);
      db.prepare('INSERT INTO wardrik_migrations (version, applied_at) VALUES (99, 0)').run();
      db.close();
      assert.throws(
        () => new SqliteStore({ path }),
        (error: unknown) => {
          assert.ok(error instanceof StoreError);
          assert.match(error.message, /newer\.db/);
          assert.match(error.message, /version 99/);
          assert.match(error.message, /Fix: a newer Wardrik wrote this store; upgrade Wardrik/);
          return true;
        },
      );
    });
  });

  describe('pages a write appends to the log (a commit costs about its pages)', () => {
    /** The b-trees (tables and indexes, by name) whose pages `write` appended to the log, with how many pages each. */
    async function treesWritten(path: string, write: () => Promise<unknown>): Promise<Record<string, number>> {
      const before = walFrames(path).length;
      await write();
      const pages = walFrames(path)
        .slice(before)
        .map((frame) => frame.page);
      const db = new Database(path, { readonly: true });
      try {
        const names = new Map(
          (db.prepare('SELECT pageno, name FROM dbstat').all() as { pageno: number; name: string }[]).map((row) => [
            row.pageno,
            row.name,
          ]),
        );
        const trees: Record<string, number> = {};
        for (const page of pages)
          trees[names.get(page) ?? `page ${page}`] = (trees[names.get(page) ?? `page ${page}`] ?? 0) + 1;
        return trees;
      } finally {
        db.close();
      }
    }

    it('counts a run’s started calls, writing the count only in commits that change it', async () => {
      const path = join(dir, 'started-pages.db');
      const store = new SqliteStore({ path });
      try {
        const run = newRunId();
        const call = (i: number, state: 'started' | 'succeeded' | 'parked') => ({
          run,
          call: `call_${i}`,
          agent: 'a',
          tool: 't/x',
          arguments: {},
          idempotencyKey: `${run}:call_${i}`,
          state,
          attempt: 1,
          updatedAt: i,
          ...(state === 'succeeded' ? { answer: { status: 'ok' as const, output: i, labels: [] } } : {}),
        });
        const started = async () => (await store.listCalls({ state: 'started' })).map((record) => record.call);
        // A turn's first commit starts its first call: the run is counted.
        let trees = await treesWritten(path, () =>
          store.writeJournal([{ call: call(0, 'started'), expected: undefined }]),
        );
        assert.equal(trees['wardrik_started_runs'], 1, JSON.stringify(trees));
        assert.deepEqual(await started(), ['call_0']);
        // Each next commit answers one call and starts another: the count is the same, and not written.
        for (let i = 1; i < 4; i++) {
          trees = await treesWritten(path, () =>
            store.writeJournal([
              { call: call(i - 1, 'succeeded'), expected: 'started' },
              { call: call(i, 'started'), expected: undefined },
            ]),
          );
          assert.equal(trees['wardrik_started_runs'], undefined, JSON.stringify(trees));
          assert.deepEqual(await started(), [`call_${i}`]);
        }
        // A refused write changes nothing; a call that parks leaves the started calls, and comes back.
        assert.deepEqual(await store.writeJournal([{ call: call(2, 'started'), expected: 'started' }]), [false]);
        assert.equal(await writeCall(store, call(3, 'parked'), 'started'), true);
        assert.deepEqual(await started(), []);
        assert.deepEqual(
          (await store.listCalls({ state: 'parked' })).map((record) => record.call),
          ['call_3'],
        );
        assert.equal(await writeCall(store, call(3, 'started'), 'parked'), true);
        assert.deepEqual(await started(), ['call_3']);
        // The last answer leaves the run with none: its count goes.
        trees = await treesWritten(path, () =>
          store.writeJournal([{ call: call(3, 'succeeded'), expected: 'started' }]),
        );
        assert.equal(trees['wardrik_started_runs'], 1, JSON.stringify(trees));
        assert.deepEqual(await started(), []);
      } finally {
        await store.close();
      }
      const check = new Database(path, { readonly: true });
      try {
        assert.deepEqual(check.prepare('SELECT run, calls FROM wardrik_started_runs').all(), []);
      } finally {
        check.close();
      }
    });

    it('takes and gives up a lease with one page each', async () => {
      const path = join(dir, 'lease-pages.db');
      const store = new SqliteStore({ path });
      try {
        assert.deepEqual(await treesWritten(path, () => leaseRun(store, 'run-1', 'node-a', 100)), {
          wardrik_leases: 1,
        });
        // Renewed for longer, so the row changes even within the same millisecond: SQLite writes no page
        // for a row rewritten exactly as it was (which made this test fail now and then).
        assert.deepEqual(await treesWritten(path, () => leaseRun(store, 'run-1', 'node-a', 200)), {
          wardrik_leases: 1,
        });
        assert.deepEqual(await treesWritten(path, () => releaseRun(store, 'run-1', 'node-a')), { wardrik_leases: 1 });
      } finally {
        await store.close();
      }
    });

    it('numbers a run with its first step in one page of run numbers, after the highest, and again after retention', async () => {
      const path = join(dir, 'run-number-pages.db');
      const store = new SqliteStore({ path });
      const step = (run: string, index: number) => ({ run, index, data: { text: 'a step' }, createdAt: 1 });
      const done = (run: string) => ({
        run,
        agent: 'a',
        status: 'done' as const,
        version: 0,
        data: {},
        createdAt: 1,
        updatedAt: 1,
      });
      try {
        for (const run of ['run-1', 'run-2', 'run-3']) await writeTurn(store, done(run), undefined);
        for (const run of ['run-1', 'run-2']) await appendStep(store, step(run, 0));
        const trees = await treesWritten(path, () => appendStep(store, step('run-3', 0)));
        assert.equal(trees.wardrik_step_runs, 1);
        assert.equal(trees.sqlite_autoindex_wardrik_step_runs_1, undefined);
        const numbers = (): unknown[] => {
          const db = new Database(path, { readonly: true });
          try {
            return db.prepare('SELECT run, no FROM wardrik_step_runs ORDER BY no').all();
          } finally {
            db.close();
          }
        };
        assert.deepEqual(numbers(), [
          { run: 'run-1', no: 1 },
          { run: 'run-2', no: 2 },
          { run: 'run-3', no: 3 },
        ]);
        // Retention takes a run's steps with its number, so a number is never shared by two runs' steps.
        assert.equal((await store.prune({ before: 2 })).runs, 3);
        await appendStep(store, step('run-4', 0));
        assert.deepEqual(numbers(), [{ run: 'run-4', no: 1 }]);
        assert.deepEqual(
          (await store.listSteps('run-4')).map((read) => read.index),
          [0],
        );
      } finally {
        await store.close();
      }
    });

    it('numbers ten runs apart when their first steps are written at once (one commit among them)', async () => {
      const path = join(dir, 'run-numbers-at-once.db');
      const store = new SqliteStore({ path });
      try {
        const runs = Array.from({ length: 10 }, (_, i) => `run-${i}`);
        const before = walFrames(path).filter((frame) => frame.commit).length;
        const written = await Promise.all(
          runs.flatMap((run) =>
            [0, 1].map((index) => appendStep(store, { run, index, data: { run, index }, createdAt: 1 })),
          ),
        );
        assert.ok(written.every(Boolean));
        assert.ok(walFrames(path).filter((frame) => frame.commit).length - before < runs.length, 'runs shared commits');
        for (const run of runs)
          assert.deepEqual(
            (await store.listSteps(run)).map((step) => step.data),
            [
              { run, index: 0 },
              { run, index: 1 },
            ],
          );
        const db = new Database(path, { readonly: true });
        try {
          const numbers = (db.prepare('SELECT no FROM wardrik_step_runs').all() as { no: number }[]).map(
            (row) => row.no,
          );
          assert.deepEqual(
            numbers.sort((a, b) => a - b),
            Array.from({ length: 10 }, (_, i) => i + 1),
          );
        } finally {
          db.close();
        }
      } finally {
        await store.close();
      }
    });

    it('adds a label with one page: the b-tree of its key, with no index beside it nor a sequence to bump', async () => {
      const path = join(dir, 'label-pages.db');
      const store = new SqliteStore({ path });
      try {
        await addLabels(store, 'run-1', ['outside']);
        assert.deepEqual(await treesWritten(path, () => addLabels(store, 'run-2', ['outside'])), { labels: 1 });
        assert.deepEqual(await treesWritten(path, () => addLabels(store, 'run-1', ['pii', 'secret'])), { labels: 1 });
        assert.deepEqual(await store.getLabels('run-1'), ['outside', 'pii', 'secret']);
      } finally {
        await store.close();
      }
    });

    it('appends a turn’s steps at the end of one b-tree: about one page of steps a journal commit, not three', async () => {
      const path = join(dir, 'step-pages.db');
      const store = new SqliteStore({ path });
      try {
        // A turn's journal commits as the agent loop makes them: the last call's answer and the tools
        // step, the next model step and its call's `started`; the steps of the size the bench's are.
        const run = newRunId();
        const model = (i: number) => ({
          format: 1,
          kind: 'model',
          model: 'mock:mock-model',
          text: '',
          calls: [{ id: `call_${i}`, name: 'b__bump', input: '{}' }],
          finishReason: 'tool-calls',
          usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 },
          usd: 0,
        });
        const tools = (i: number) => ({
          format: 1,
          kind: 'tools',
          results: [{ id: `call_${i}`, name: 'b__bump', text: '2', error: false }],
        });
        const call = (i: number, state: 'started' | 'succeeded') => ({
          run,
          call: `call_${i}`,
          agent: 'bench',
          tool: 'b/bump',
          arguments: {},
          idempotencyKey: `${run}:call_${i}`,
          state,
          attempt: 1,
          updatedAt: i,
          ...(state === 'started' ? {} : { answer: { status: 'ok' as const, output: 2, labels: [] } }),
        });
        const commit = (i: number): JournalWrite[] => [
          ...(i === 0
            ? []
            : [
                { call: call(i - 1, 'succeeded'), expected: 'started' as const },
                { step: { run, index: 2 * i - 1, data: tools(i - 1), createdAt: i } },
              ]),
          { step: { run, index: 2 * i, data: model(i), createdAt: i } },
          { call: call(i, 'started'), expected: undefined },
        ];
        for (let i = 0; i < 10; i++) await store.writeJournal(commit(i));
        const COMMITS = 60;
        const trees = await treesWritten(path, async () => {
          for (let i = 10; i < 10 + COMMITS; i++) assert.ok((await store.writeJournal(commit(i))).every(Boolean));
        });
        // Keyed by (run, idx) (schema 8) the steps took 2.9 pages a commit and all the b-trees 6.5: an index
        // b-tree rebalances three leaves and their parent whenever the leaf at its end fills. Appended to a
        // rowid table: 1.4 (one leaf, and a new leaf with its parent about every fifth commit), 5.0 in all.
        const steps = (trees['wardrik_steps'] ?? 0) / COMMITS;
        assert.ok(
          steps <= 1.6,
          `steps: ${steps.toFixed(2)} pages a commit; all pages written: ${JSON.stringify(trees)}`,
        );
        const pages = Object.values(trees).reduce((sum, n) => sum + n, 0) / COMMITS;
        assert.ok(pages <= 5.5, `${pages.toFixed(2)} pages a commit: ${JSON.stringify(trees)}`);
        assert.equal((await store.listSteps(run)).length, 2 * (10 + COMMITS) - 1);
      } finally {
        await store.close();
      }
    });

    it('finishes a turn without rewriting the index of turns by agent, and still writes a record that moves it', async () => {
      const path = join(dir, 'turn-pages.db');
      const store = new SqliteStore({ path });
      try {
        const turn = {
          run: 'run-1',
          agent: 'a',
          status: 'running' as const,
          version: 0,
          data: { n: 0 },
          createdAt: 10,
          updatedAt: 10,
        };
        await writeTurn(store, turn, undefined);
        const done = { ...turn, status: 'done' as const, version: 1, data: { n: 1 }, updatedAt: 20 };
        const trees = await treesWritten(path, () => writeTurn(store, done, 0));
        assert.equal(trees['wardrik_turns_by_agent'], undefined, `pages written: ${JSON.stringify(trees)}`);
        assert.deepEqual(await store.getTurn('run-1'), done);
        // The whole record is still written when its agent or creation time changes, and only at the expected version.
        const moved = { ...done, agent: 'b', createdAt: 5, version: 2 };
        assert.equal(await writeTurn(store, moved, 0), false);
        assert.equal(await writeTurn(store, moved, 1), true);
        assert.deepEqual(await store.getTurn('run-1'), moved);
        assert.deepEqual(
          (await store.listTurns({ agent: 'b' })).map((record) => record.run),
          ['run-1'],
        );
        assert.deepEqual(await store.listTurns({ agent: 'a' }), []);
      } finally {
        await store.close();
      }
    });
    it('finishes a turn writing three b-trees of turns: the table, turns by status and finished turns by agent', async () => {
      const path = join(dir, 'turn-end-pages.db');
      const store = new SqliteStore({ path });
      try {
        const turn = {
          run: 'run-1',
          agent: 'a',
          status: 'running' as const,
          version: 0,
          data: { n: 0 },
          createdAt: 10,
          updatedAt: 10,
        };
        await writeTurn(store, turn, undefined);
        const done = { ...turn, status: 'done' as const, version: 1, updatedAt: 20 };
        const trees = await treesWritten(path, () => writeTurn(store, done, 0));
        assert.deepEqual(
          Object.keys(trees)
            .filter((tree) => tree.includes('turns'))
            .sort(),
          ['wardrik_turns', 'wardrik_turns_by_status', 'wardrik_turns_finished'],
          `pages written: ${JSON.stringify(trees)}`,
        );
        assert.deepEqual(await store.lastFinishedTurns('a', 1), [done]);
      } finally {
        await store.close();
      }
    });
  });

  describe('a step', () => {
    it('is refused with a StoreError when its index is not an integer from 0 to 2^32 - 1, the low bits of its row', async () => {
      const store = new SqliteStore({ path: join(dir, 'step-index.db') });
      try {
        for (const index of [-1, 2 ** 32, 1.5]) {
          await assert.rejects(
            appendStep(store, { run: 'run-1', index, data: 'x', createdAt: 1 }),
            (error: unknown) => error instanceof StoreError && /step index/.test(error.message),
          );
        }
        assert.equal(await appendStep(store, { run: 'run-1', index: 2 ** 32 - 1, data: 'last', createdAt: 1 }), true);
        assert.equal(await appendStep(store, { run: 'run-2', index: 0, data: 'next run', createdAt: 1 }), true);
        assert.deepEqual(
          (await store.listSteps('run-1')).map((step) => step.index),
          [2 ** 32 - 1],
        );
      } finally {
        await store.close();
      }
    });
  });

  describe('when SQLite cannot write', () => {
    it('fails a write to a read-only store with a StoreError naming the file, the cause and the fix', async () => {
      const path = join(dir, 'readonly.db');
      const writer = new SqliteStore({ path });
      await addSpend(writer, 'a', 1);
      await writer.close();
      const store = new SqliteStore({ path, readonly: true });
      try {
        assert.equal(await store.getSpend('a'), 1);
        await assert.rejects(addSpend(store, 'a', 1), (error: unknown) => {
          assert.ok(error instanceof StoreError);
          assert.equal(error.code, 'store');
          assert.match(error.message, /readonly\.db/);
          assert.match(error.message, /SQLITE_READONLY/);
          assert.match(error.message, /Fix: .*writ/);
          return true;
        });
      } finally {
        await store.close();
      }
    });

    it('fails to open a path whose directory is a file, naming the path and the fix', () => {
      const file = join(dir, 'not-a-dir');
      writeFileSync(file, 'x');
      assert.throws(
        () => new SqliteStore({ path: join(file, 'wardrik.db') }),
        (error: unknown) => {
          assert.ok(error instanceof StoreError);
          assert.match(error.message, /not-a-dir\/wardrik\.db/);
          assert.match(error.message, /ENOTDIR|EEXIST/);
          assert.match(error.message, /choose another path/);
          return true;
        },
      );
    });

    it('fails to open a file that is not a database, saying so', () => {
      const path = join(dir, 'garbage.db');
      writeFileSync(path, 'this is not a database, but it is long enough to have a header '.repeat(100));
      assert.throws(
        () => new SqliteStore({ path }),
        (error: unknown) => {
          assert.ok(error instanceof StoreError);
          assert.match(error.message, /garbage\.db/);
          assert.match(error.message, /SQLITE_NOTADB/);
          assert.match(error.message, /not a SQLite database/);
          return true;
        },
      );
    });
  });
});

describe('a Wardrik on a SQLite store opened read-only, to inspect a journal', () => {
  it('starts without recovering or writing, shows the journal, and fails a call at once, naming it', async () => {
    const path = join(dir, 'inspect.db');
    const writer = new SqliteStore({ path });
    const started = {
      run: 'run-1',
      call: 'c1',
      agent: 'a',
      tool: 't/email',
      arguments: {},
      idempotencyKey: 'run-1:c1',
      state: 'started' as const,
      attempt: 1,
      updatedAt: 1,
    };
    await writeCall(writer, started, undefined);
    await writer.close();
    const ran: string[] = [];
    const email = defineTool({ name: 'email', description: 'Sends.', run: () => ran.push('email') });
    const wardrik = await Wardrik.create({ store: new SqliteStore({ path, readonly: true }), tools: { t: [email] } });
    try {
      const store = wardrik.container.resolve(Tokens.Store);
      assert.deepEqual(await store.listCalls({ run: 'run-1' }), [started], 'recovery left the call as it was');
      assert.equal((await store.listRuns())[0]?.run, 'run-1');
      await assert.rejects(wardrik.runner.run({ agent: 'a', run: 'run-1', call: { id: 'c2', name: 't__email' } }), {
        name: 'StoreError',
        message:
          'Call "c2" of run "run-1" (t/email) did not run: the store was opened read-only, for inspecting a journal. Open it without readonly to run calls.',
      });
      await assert.rejects(
        wardrik.recover(),
        /this store was opened read-only \(for inspection\); nothing was recovered/,
      );
      assert.deepEqual(ran, []);
    } finally {
      await wardrik.close();
    }
  });
});

describe('a call refused before it runs, when the journal cannot be written', () => {
  it('fails naming the call and saying it did not run', async () => {
    const path = join(dir, 'refused.db');
    const store = new SqliteStore({ path });
    const wardrik = await Wardrik.create({
      store,
      tools: {
        t: [defineTool({ name: 'read', description: 'Reads.', annotations: { readOnly: true }, run: () => 'read' })],
      },
    });
    try {
      // The journal's table is gone, so the unknown tool's refusal cannot be written.
      new Database(path).exec('DROP TABLE calls');
      await assert.rejects(wardrik.runner.run({ agent: 'a', run: 'run-1', call: { id: 'c1', name: 't__nope' } }), {
        name: 'StoreError',
        message:
          /^Call "c1" of run "run-1" \(t__nope\) did not run: could not write its answer to the journal: SQLite store .* could not write a call/,
      });
    } finally {
      await wardrik.close();
    }
  });
});

describe('SqliteStore retention of runs of calls only, found by walking the calls in the order first written', () => {
  /** A final call of its own run, written at `at`. */
  const done = (run: string, at: number): JournalWrite => ({
    call: {
      run,
      call: 'c1',
      agent: 'a',
      tool: 't/x',
      arguments: {},
      idempotencyKey: run,
      state: 'succeeded',
      attempt: 1,
      answer: { status: 'ok', output: 1, labels: [] },
      updatedAt: at,
    },
    expected: undefined,
  });

  it('finds old runs past the first chunk and past a few calls written out of order, and stops after 1 000 young calls in a row', async () => {
    const store = new SqliteStore({ path: join(dir, 'walk.db') });
    try {
      const old = Array.from({ length: 300 }, (_, i) => `old-${i}`);
      const island = Array.from({ length: 10 }, (_, i) => `island-${i}`);
      const young = Array.from({ length: 1_000 }, (_, i) => `young-${i}`);
      // In the order first written: 300 old runs, 10 young ones (a clock ahead), one old run, 1 000 young runs, one more old run.
      await store.writeJournal([
        ...old.map((run, i) => done(run, i + 1)),
        ...island.map((run) => done(run, 10_000)),
        done('old-after-island', 5),
        ...young.map((run) => done(run, 10_000)),
        done('old-after-young', 5),
      ]);
      const first = await store.prune({ before: 1_000, limit: 200 });
      assert.equal(first.runs, 200, 'the limit holds');
      assert.deepEqual(await store.prune({ before: 1_000 }), { ...first, runs: 101, calls: 101 });
      for (const run of [...old, 'old-after-island']) assert.equal(await store.getCall(run, 'c1'), undefined, run);
      // Past 1 000 young calls in a row the walk ends: this run waits until those are old too.
      assert.equal((await store.getCall('old-after-young', 'c1'))?.state, 'succeeded');
      assert.equal((await store.prune({ before: 20_000 })).runs, 1_011);
    } finally {
      await store.close();
    }
  });
});
