import 'reflect-metadata';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ConflictError, SqliteStore, type CallRecord, type JournalWrite } from '../../src/index.js';
import { JournalBatch } from '../../src/runner/journal-batch.js';
import { walCommits } from '../store/commit-counters.js';
import { appendStep } from '../../src/store/journal-writes.js';

const dir = mkdtempSync(join(tmpdir(), 'wardrik-journal-batch-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

function started(run: string, call: string): CallRecord {
  return {
    run,
    call,
    agent: 'a',
    tool: 't/x',
    arguments: {},
    idempotencyKey: `${run}:${call}`,
    state: 'started',
    attempt: 1,
    updatedAt: 1,
  };
}
const step = (run: string, index: number): JournalWrite => ({
  step: { run, index, data: { kind: 'model' }, createdAt: 1 },
});

function open(): { store: SqliteStore; commits: () => number } {
  const path = join(dir, `batch-${++n}.db`);
  const store = new SqliteStore({ path });
  return { store, commits: () => walCommits(path) };
}

describe('JournalBatch', () => {
  it('commits what it holds with the next write, in one transaction', async () => {
    const { store, commits } = open();
    try {
      const batch = new JournalBatch(store);
      const heard: (Error | undefined)[] = [];
      batch.hold(step('r', 0), true, (error) => heard.push(error));
      const before = commits();
      assert.deepEqual(await batch.write([{ call: started('r', 'c1'), expected: undefined }]), [true]);
      assert.equal(commits() - before, 1);
      assert.deepEqual(heard, [undefined]);
      assert.equal((await store.listSteps('r')).length, 1);
    } finally {
      await store.close();
    }
  });

  it('commits the first writes of calls started together once, with what it holds', async () => {
    const { store, commits } = open();
    try {
      const batch = new JournalBatch(store);
      batch.hold(step('r', 0));
      batch.expect(3);
      const before = commits();
      const results = await Promise.all(
        ['c1', 'c2', 'c3'].map(async (call) => batch.write([{ call: started('r', call), expected: undefined }])),
      );
      assert.deepEqual(results, [[true], [true], [true]]);
      assert.equal(commits() - before, 1);
    } finally {
      await store.close();
    }
  });

  it('commits writers that never all came once the event loop turned', async () => {
    const { store } = open();
    try {
      const batch = new JournalBatch(store);
      batch.expect(3);
      assert.deepEqual(await batch.write([{ call: started('r', 'c1'), expected: undefined }]), [true]);
      // The next write is not held up.
      assert.deepEqual(await batch.write([{ call: started('r', 'c2'), expected: undefined }]), [true]);
    } finally {
      await store.close();
    }
  });

  it('stops with a ConflictError when a held step was written by another node, ending the calls it started without running', async () => {
    const { store } = open();
    try {
      assert.equal(await appendStep(store, { run: 'r', index: 0, data: { kind: 'model' }, createdAt: 1 }), true);
      const batch = new JournalBatch(store);
      batch.hold(step('r', 0));
      await assert.rejects(
        async () => batch.write([{ call: started('r', 'c1'), expected: undefined }]),
        (error: unknown) => error instanceof ConflictError && /step 0/.test(error.message),
      );
      const call = await store.getCall('r', 'c1');
      assert.equal(call?.state, 'failed', 'not left started for a recovery to run');
      assert.equal(call?.answer?.status === 'error' && call.answer.code, 'conflict');
      await assert.rejects(async () => batch.write([{ call: started('r', 'c2'), expected: undefined }]), ConflictError);
    } finally {
      await store.close();
    }
  });

  it('tells every holder when a commit fails, and fails every write after it', async () => {
    const { store } = open();
    const batch = new JournalBatch(store);
    const heard: (Error | undefined)[] = [];
    batch.hold(step('r', 0), false, (error) => heard.push(error));
    assert.equal(batch.mustCommit, true);
    await store.close();
    await assert.rejects(async () => batch.write([{ call: started('r', 'c1'), expected: undefined }]));
    assert.equal(heard.length, 1);
    assert.ok(heard[0] instanceof Error);
    await assert.rejects(async () => batch.write([{ call: started('r', 'c2'), expected: undefined }]));
    await assert.rejects(async () => batch.flush());
  });
});
