import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { StoreError } from '../../src/errors.js';
import { PostgresStore } from '../../src/store/postgres-store.js';
import { SqliteStore } from '../../src/store/sqlite-store.js';
import type { CallRecord, JournalWrite, Store, TurnRecord } from '../../src/store/store.js';
import { POSTGRES_URL, scratchStores } from '../crash/scratch-stores.js';
import { countPostgres, walCommits } from './commit-counters.js';
import { eventually } from '../eventually.js';
import { leaseRun } from '../../src/store/journal-writes.js';

// Group commit: journal batches of many runs handed in at once share a commit, and
// each caller still sees exactly what its batch alone would have got.

const { dir, schema: newSchema } = scratchStores('group');

/** A fresh store, and how many commits (SQLite WAL commits, PostgreSQL write transactions) it has made since. */
interface Opened {
  readonly store: Store;
  readonly commits: () => number;
  readonly roundTrips: () => number;
  readonly close: () => Promise<void>;
}

const STORES: readonly [string, () => Promise<Opened>][] = [
  [
    'SQLite',
    async () => {
      const path = join(dir, `${randomUUID()}.db`);
      const store = new SqliteStore({ path });
      const before = walCommits(path);
      return { store, commits: () => walCommits(path) - before, roundTrips: () => 0, close: () => store.close() };
    },
  ],
  [
    'PostgreSQL',
    async () => {
      const schema = newSchema();
      const store = await new PostgresStore({ url: POSTGRES_URL, schema }).start();
      const counter = countPostgres(schema);
      return {
        store,
        commits: () => counter.counts.transactions,
        roundTrips: () => counter.counts.roundTrips,
        close: async () => {
          counter.restore();
          await store.close();
        },
      };
    },
  ],
];

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

const answered = (record: CallRecord): CallRecord => ({
  ...record,
  state: 'succeeded',
  answer: { status: 'ok', output: 1, labels: [] },
  updatedAt: 2,
});

/** A model step and the `started` records of its three calls. */
function stepAndCalls(run: string, index = 0): JournalWrite[] {
  return [
    { step: { run, index, data: { kind: 'model' }, createdAt: 1 } },
    ...['c0', 'c1', 'c2'].map((call) => ({ call: started(run, call), expected: undefined })),
  ];
}

for (const [name, open] of STORES) {
  describe(`Group commit on ${name}`, () => {
    it('commits the batches of 100 runs handed in at once together, answering each its own results', async () => {
      const { store, commits, roundTrips, close } = await open();
      try {
        const runs = Array.from({ length: 100 }, () => randomUUID());
        assert.ok(
          (await Promise.all(runs.map((run) => store.writeJournal(stepAndCalls(run))))).every((results) =>
            results.every(Boolean),
          ),
        );
        assert.equal(commits(), 1, '100 runs, one commit');
        if (name === 'PostgreSQL') assert.equal(roundTrips(), 1, 'one statement');
        // Half the runs answer their calls (started → succeeded); the other half expect a state their
        // calls are not in, and each of those loses its compare-and-sets while its new step goes in.
        const results = await Promise.all(
          runs.map((run, i) =>
            store.writeJournal([
              ...['c0', 'c1', 'c2'].map((call): JournalWrite => ({
                call: answered(started(run, call)),
                expected: i % 2 === 0 ? 'started' : 'parked',
              })),
              { step: { run, index: 1, data: { kind: 'tools' }, createdAt: 2 } },
            ]),
          ),
        );
        results.forEach((batch, i) =>
          assert.deepEqual(batch, i % 2 === 0 ? [true, true, true, true] : [false, false, false, true], `run ${i}`),
        );
        assert.equal(commits(), 2);
        assert.equal((await store.listCalls({ run: runs[0]!, state: 'succeeded' })).length, 3);
        assert.equal((await store.listCalls({ run: runs[1]!, state: 'started' })).length, 3);
        assert.equal((await store.listSteps(runs[1]!)).length, 2);
      } finally {
        await close();
      }
    });

    it('commits the starts and ends of 100 agent turns handed in at once together, each its lease, labels, turn and calls', async () => {
      const { store, commits, roundTrips, close } = await open();
      try {
        const runs = Array.from({ length: 100 }, () => randomUUID());
        const turn = (run: string, version: number): TurnRecord => ({
          run,
          agent: 'a',
          status: version === 1 ? 'running' : 'done',
          version,
          data: { version },
          createdAt: 1,
          updatedAt: version,
        });
        const starts = await Promise.all(
          runs.map((run) =>
            store.writeJournal([
              { lease: { run, node: 'node-a', ttlMs: 60_000 } },
              { labels: { run, labels: ['pii'] } },
              { turn: turn(run, 1), expectedVersion: undefined },
              ...stepAndCalls(run),
            ]),
          ),
        );
        assert.ok(starts.every((results) => results.length === 7 && results.every(Boolean)));
        assert.equal(commits(), 1, '100 turns started, one commit');
        if (name === 'PostgreSQL') assert.equal(roundTrips(), 1, 'one statement');
        // Every other turn ends; the rest expect a version their turn is not at and keep their lease.
        const ends = await Promise.all(
          runs.map((run, i) =>
            store.writeJournal([
              ...['c0', 'c1', 'c2'].map((call): JournalWrite => ({
                call: answered(started(run, call)),
                expected: 'started',
              })),
              { turn: turn(run, 2), expectedVersion: i % 2 === 0 ? 1 : 2 },
              { release: { run, node: i % 2 === 0 ? 'node-a' : 'node-b' } },
            ]),
          ),
        );
        ends.forEach((results, i) => assert.deepEqual(results, [true, true, true, i % 2 === 0, true], `run ${i}`));
        assert.equal(commits(), 2);
        if (name === 'PostgreSQL') assert.equal(roundTrips(), 2);
        assert.equal((await store.getTurn(runs[0]!))?.status, 'done');
        assert.equal((await store.getTurn(runs[1]!))?.status, 'running');
        assert.equal(await leaseRun(store, runs[0]!, 'node-b', 100), true, 'given up by its holder');
        assert.equal(await leaseRun(store, runs[1]!, 'node-b', 100), false, 'node-b does not hold it');
        assert.deepEqual(await store.getLabels(runs[1]!), ['pii']);
      } finally {
        await close();
      }
    });

    it('answers batches that write the same call in the order they were handed in, as one after the other would', async () => {
      const { store, close } = await open();
      try {
        const record = started('r', 'c');
        const [first, again, finish, lateFinish] = await Promise.all([
          store.writeJournal([{ call: record, expected: undefined }]),
          store.writeJournal([{ call: record, expected: undefined }]),
          store.writeJournal([{ call: answered(record), expected: 'started' }]),
          store.writeJournal([{ call: { ...answered(record), state: 'failed' }, expected: 'started' }]),
        ]);
        assert.deepEqual([first, again, finish, lateFinish], [[true], [false], [true], [false]]);
        assert.equal((await store.getCall('r', 'c'))?.state, 'succeeded');
      } finally {
        await close();
      }
    });

    it('answers a batch that writes the same call twice as its writes one after the other would, and keeps what they would', async () => {
      const { store, close } = await open();
      try {
        const run = randomUUID();
        const record = started(run, 'c');
        const other = started(run, 'd');
        // Two first writes of one call (an agent whose model gave two calls one id): the second is refused.
        assert.deepEqual(
          await store.writeJournal([
            { call: record, expected: undefined },
            { call: { ...record, tool: 't/y' }, expected: undefined },
          ]),
          [true, false],
        );
        assert.equal((await store.getCall(run, 'c'))?.tool, 't/x');
        // A first write then its answer, in one batch: both take, and the answer is what stays.
        assert.deepEqual(
          await store.writeJournal([
            { call: other, expected: undefined },
            { call: answered(other), expected: 'started' },
          ]),
          [true, true],
        );
        assert.equal((await store.getCall(run, 'd'))?.state, 'succeeded');
        // Two answers of one started call: the first takes, the second finds it no longer started.
        const third = started(run, 'e');
        await store.writeJournal([{ call: third, expected: undefined }]);
        assert.deepEqual(
          await store.writeJournal([
            { call: answered(third), expected: 'started' },
            { call: { ...answered(third), state: 'failed' }, expected: 'started' },
          ]),
          [true, false],
        );
        assert.equal((await store.getCall(run, 'e'))?.state, 'succeeded');
      } finally {
        await close();
      }
    });

    for (const [fault, bad] of [
      [
        'a value the database refuses (NOT NULL)',
        (run: string): JournalWrite => ({
          call: { ...started(run, 'bad'), agent: null as unknown as string },
          expected: undefined,
        }),
      ],
      [
        'a value that cannot be encoded (a bigint)',
        (run: string): JournalWrite => ({
          call: { ...started(run, 'bad'), arguments: { n: 1n } },
          expected: undefined,
        }),
      ],
    ] as const) {
      it(`fails only the batch with ${fault}: the batches beside it commit, and nothing of it is kept`, async () => {
        const { store, close } = await open();
        try {
          const runs = ['before', 'faulty', 'after'].map((run) => `${run}-${randomUUID()}`);
          const outcomes = await Promise.allSettled(
            runs.map((run, i) => store.writeJournal(i === 1 ? [...stepAndCalls(run), bad(run)] : stepAndCalls(run))),
          );
          assert.deepEqual(outcomes[0], { status: 'fulfilled', value: [true, true, true, true] });
          assert.deepEqual(outcomes[2], { status: 'fulfilled', value: [true, true, true, true] });
          assert.equal(outcomes[1]!.status, 'rejected');
          const error = (outcomes[1] as PromiseRejectedResult).reason as Error;
          assert.ok(error instanceof StoreError, String(error));
          assert.match(error.message, /could not write to the journal/);
          assert.deepEqual(await store.listCalls({ run: runs[1]! }), [], 'the faulty batch is undone whole');
          assert.deepEqual(await store.listSteps(runs[1]!), []);
          for (const run of [runs[0]!, runs[2]!]) assert.equal((await store.listCalls({ run })).length, 3);
        } finally {
          await close();
        }
      });
    }

    it("keeps the spend of the batches beside one that fails, once each, and none of the failed one's", async () => {
      const { store, close } = await open();
      try {
        const agent = `agent-${randomUUID()}`;
        const runs = ['before', 'faulty', 'after'].map((run) => `${run}-${randomUUID()}`);
        const bad = (run: string): JournalWrite => ({
          call: { ...started(run, 'bad'), agent: null as unknown as string },
          expected: undefined,
        });
        const outcomes = await Promise.allSettled(
          runs.map((run, i) =>
            store.writeJournal([
              ...stepAndCalls(run),
              { spend: { agent, microUsd: 250_000 } },
              ...(i === 1 ? [bad(run)] : []),
            ]),
          ),
        );
        assert.deepEqual(
          outcomes.map((outcome) => outcome.status),
          ['fulfilled', 'rejected', 'fulfilled'],
        );
        // The shared transaction (SQLite) or statement (PostgreSQL) was made again without the faulty batch: no spend twice.
        assert.equal(await store.getSpend(agent), 500_000);
      } finally {
        await close();
      }
    });

    it('answers batches handed in just before the store closes, and keeps them', async () => {
      const { store, close } = await open();
      const run = randomUUID();
      const written = store.writeJournal(stepAndCalls(run));
      await close();
      assert.deepEqual(await written, [true, true, true, true]);
      await assert.rejects(store.writeJournal(stepAndCalls(randomUUID())), StoreError);
    });
  });
}

describe('Group commit on SQLite, reopened', () => {
  it('keeps what a batch handed in just before close wrote', async () => {
    const path = join(dir, `${randomUUID()}.db`);
    const store = new SqliteStore({ path });
    const written = store.writeJournal(stepAndCalls('r'));
    await store.close();
    assert.deepEqual(await written, [true, true, true, true]);
    const again = new SqliteStore({ path });
    try {
      assert.equal((await again.listCalls({ run: 'r' })).length, 3);
    } finally {
      await again.close();
    }
  });
});

describe('Group commit on SQLite, when a commit starts', () => {
  it("commits a lone run's batch before the event loop's next turn", async () => {
    const store = new SqliteStore({ path: join(dir, `${randomUUID()}.db`) });
    try {
      const order: string[] = [];
      // Scheduled before the batch is handed in: a commit that waited for the loop's next turn would come after it.
      const nextTurn = new Promise<void>((resolve) =>
        setImmediate(() => {
          order.push("the loop's next turn");
          resolve();
        }),
      );
      const written = store.writeJournal(stepAndCalls(randomUUID())).then((results) => {
        order.push('committed');
        return results;
      });
      assert.deepEqual(await written, [true, true, true, true]);
      await nextTurn;
      assert.deepEqual(order, ['committed', "the loop's next turn"]);
    } finally {
      await store.close();
    }
  });

  it('commits the batches of ten runs handed in by ten callbacks of one turn of the loop in three commits at most', async () => {
    const path = join(dir, `${randomUUID()}.db`);
    const store = new SqliteStore({ path });
    try {
      const before = walCommits(path);
      const runs = Array.from({ length: 10 }, () => randomUUID());
      // Each from a callback of its own (as the answers of ten tools' HTTP requests would come), all in one turn.
      const written = await Promise.all(
        runs.map(
          (run) =>
            new Promise<boolean[]>((resolve, reject) =>
              setImmediate(() => store.writeJournal(stepAndCalls(run)).then(resolve, reject)),
            ),
        ),
      );
      assert.ok(written.every((results) => results.every(Boolean)));
      // The first two commit alone, each as soon as its callback is done; from the second writer on, the
      // batches wait for the loop's next turn and go together.
      assert.ok(walCommits(path) - before <= 3, `${walCommits(path) - before} commits`);
      for (const run of runs) assert.equal((await store.listCalls({ run })).length, 3);
    } finally {
      await store.close();
    }
  });
});

for (const driver of ['node', 'better-sqlite3'] as const) {
  describe(`A busy SQLite store, on the ${driver} driver`, () => {
    /** How many calls the database file holds on its own, without its write-ahead log: what checkpoints moved there. */
    const callsInFile = (path: string): number => {
      const copy = join(dir, `${randomUUID()}.db`);
      copyFileSync(path, copy);
      const db = new Database(copy, { readonly: true });
      try {
        // A file whose log was never checkpointed has not even the tables yet.
        if (db.prepare(`SELECT 1 FROM sqlite_master WHERE name = 'calls'`).get() === undefined) return 0;
        return (db.prepare('SELECT count(*) AS n FROM calls').get() as { n: number }).n;
      } finally {
        db.close();
      }
    };
    /** The store's checkpoint thread, if it started one (read from its private state: nothing public says so). */
    const checkpointThread = (store: SqliteStore): unknown =>
      (store as unknown as { checkpoints: { worker?: unknown } }).checkpoints.worker;
    const journal = async (store: SqliteStore, commits: number): Promise<void> => {
      for (let i = 0; i < commits; i++)
        await store.writeJournal([{ call: started(randomUUID(), 'c'), expected: undefined }]);
    };

    it('moves its write-ahead log into the file from a thread of its own, while the calls go on', async () => {
      const path = join(dir, `${randomUUID()}.db`);
      const store = new SqliteStore({ path, driver });
      try {
        await journal(store, 600);
        // The store's connection checkpoints only at 10 000 pages now, far beyond these 600 commits:
        // rows in the file itself were moved there by the thread.
        const moved = await eventually('the thread to move 600 calls into the file', () => {
          const inFile = callsInFile(path);
          return inFile >= 600 ? inFile : undefined;
        });
        assert.equal(moved, 600);
      } finally {
        await store.close();
      }
    });

    it('starts no thread while it is quiet: the log stays as SQLite keeps it', async () => {
      const path = join(dir, `${randomUUID()}.db`);
      const store = new SqliteStore({ path, driver });
      try {
        await journal(store, 100);
        // No thread was started, so none can checkpoint later either.
        assert.equal(checkpointThread(store), undefined, 'no checkpoint thread');
        assert.equal(callsInFile(path), 0, 'nothing checkpointed below SQLite’s own mark of 1 000 pages');
      } finally {
        await store.close();
      }
    });
  });
}
