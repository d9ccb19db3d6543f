import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import { PostgresStore } from '../../src/store/postgres-store.js';
import { SqliteStore } from '../../src/store/sqlite-store.js';
import type { CallRecord, JournalWrite } from '../../src/store/store.js';
import { countPostgres, walCommits } from './commit-counters.js';
import { appendStep, writeCall } from '../../src/store/journal-writes.js';

const dir = mkdtempSync(join(tmpdir(), 'wardrik-commits-'));
const url = process.env.WARDRIK_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `wardrik_test_commits_${randomBytes(5).toString('hex')}`;
after(async () => {
  rmSync(dir, { recursive: true, force: true });
  const admin = new pg.Pool({ connectionString: url, max: 1 });
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
  await admin.end();
});

function started(run: string, call: string): CallRecord {
  return {
    run,
    call,
    agent: 'a',
    tool: 't/x',
    arguments: { n: call },
    idempotencyKey: `${run}:${call}`,
    state: 'started',
    attempt: 1,
    updatedAt: 1,
  };
}

/** A model step and the `started` records of its ten calls: what must be durable before the tools run. */
function stepAndCalls(run: string): JournalWrite[] {
  return [
    { step: { run, index: 0, data: { kind: 'model' }, createdAt: 1 } },
    ...Array.from({ length: 10 }, (_, i) => ({ call: started(run, `c${i}`), expected: undefined })),
  ];
}

describe('A batch of journal writes', () => {
  it('is one commit on SQLite, however many records it holds', async () => {
    const path = join(dir, 'one.db');
    const store = new SqliteStore({ path });
    try {
      const before = walCommits(path);
      const results = await store.writeJournal(stepAndCalls('run-1'));
      assert.deepEqual(results, Array(11).fill(true));
      assert.equal(walCommits(path) - before, 1);
      assert.equal((await store.writeJournal(stepAndCalls('run-2'))).length, 11);
      assert.equal(walCommits(path) - before, 2);
      // Each write on its own is a commit of its own, which is what a batch saves.
      for (const write of stepAndCalls('run-3'))
        await ('call' in write
          ? writeCall(store, write.call, undefined)
          : 'step' in write
            ? appendStep(store, write.step)
            : undefined);
      assert.equal(walCommits(path) - before, 13);
    } finally {
      await store.close();
    }
  });

  it('shares one SQLite commit with the batches of other runs ready in the same tick (group commit)', async () => {
    const path = join(dir, 'group.db');
    const store = new SqliteStore({ path });
    try {
      const before = walCommits(path);
      const runs = Array.from({ length: 100 }, () => `run-${randomUUID()}`);
      const results = await Promise.all(runs.map((run) => store.writeJournal(stepAndCalls(run))));
      assert.ok(results.every((batch) => batch.length === 11 && batch.every(Boolean)));
      assert.equal(walCommits(path) - before, 1, '100 runs, one commit');
      assert.equal((await store.listCalls({ run: runs[99]! })).length, 10);
    } finally {
      await store.close();
    }
  });

  it('is one round trip and one transaction on PostgreSQL', async () => {
    const store = await new PostgresStore({ url, schema }).start();
    const counter = countPostgres(schema);
    try {
      const results = await store.writeJournal(stepAndCalls('run-1'));
      assert.deepEqual(results, Array(11).fill(true));
      assert.deepEqual(counter.counts, { roundTrips: 1, transactions: 1 });
      const answers = stepAndCalls('run-1')
        .filter((write): write is { call: CallRecord; expected: undefined } => 'call' in write)
        .map((write): JournalWrite => ({
          call: { ...write.call, state: 'succeeded', answer: { status: 'ok', output: 1, labels: [] }, updatedAt: 2 },
          expected: 'started',
        }));
      const tools: JournalWrite = { step: { run: 'run-1', index: 1, data: { kind: 'tools' }, createdAt: 2 } };
      assert.deepEqual(await store.writeJournal([...answers, tools]), Array(11).fill(true));
      assert.deepEqual(counter.counts, { roundTrips: 2, transactions: 2 });
      assert.equal((await store.listCalls({ run: 'run-1', state: 'succeeded' })).length, 10);
    } finally {
      counter.restore();
      await store.close();
    }
  });

  it('goes as one call of the one journal function on PostgreSQL, whatever the batch writes (wardrik_journal_row is gone)', async () => {
    const store = await new PostgresStore({ url, schema }).start();
    const sent: string[] = [];
    const original = pg.Client.prototype.query;
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      const text = (args[0] as { text?: string })?.text ?? '';
      if (text.includes(`"${schema}"`))
        sent.push(/\.wardrik_journal_row\(/.test(text) ? 'row' : /\.wardrik_journal\(/.test(text) ? 'arrays' : 'other');
      return (original as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof original;
    try {
      const step = (run: string, index: number): JournalWrite => ({
        step: { run, index, data: { kind: 'model' }, createdAt: 1 },
      });
      // A tool call's commit: the last answer, its tools step, the next model step and its call.
      await store.writeJournal([step('run-r', 0), { call: started('run-r', 'c0'), expected: undefined }]);
      const answered: JournalWrite = {
        call: {
          ...started('run-r', 'c0'),
          state: 'succeeded',
          answer: { status: 'ok', output: 1, labels: [] },
          updatedAt: 2,
        },
        expected: 'started',
      };
      assert.deepEqual(
        await store.writeJournal([
          answered,
          step('run-r', 1),
          step('run-r', 2),
          { spend: { agent: 'a', microUsd: 1 } },
          { call: started('run-r', 'c1'), expected: undefined },
        ]),
        [true, true, true, true, true],
      );
      // Migration 10 dropped the function of single values: one encoding of each write.
      assert.deepEqual(sent, ['arrays', 'arrays']);
      // Answered each: the compare-and-set and the step that find their rows taken take nothing.
      assert.deepEqual(await store.writeJournal([answered, step('run-r', 3), step('run-r', 2)]), [false, true, false]);
      // Two new calls, three steps, labels (even none: then no row answers the write): arrays.
      sent.length = 0;
      assert.deepEqual(await store.writeJournal([step('run-r', 4), { labels: { run: 'run-r', labels: [] } }]), [
        true,
        true,
      ]);
      await store.writeJournal([
        { call: started('run-a', 'c0'), expected: undefined },
        { call: started('run-a', 'c1'), expected: undefined },
      ]);
      await store.writeJournal([step('run-a', 0), step('run-a', 1), step('run-a', 2)]);
      await store.writeJournal([{ labels: { run: 'run-a', labels: ['outside'] } }]);
      // Batches of two runs ready together share one statement: arrays.
      await Promise.all([store.writeJournal([step('run-b', 0)]), store.writeJournal([step('run-c', 0)])]);
      assert.deepEqual(sent, ['arrays', 'arrays', 'arrays', 'arrays', 'arrays']);
      assert.equal((await store.listSteps('run-c')).length, 1);
    } finally {
      pg.Client.prototype.query = original;
      await store.close();
    }
  });
});
