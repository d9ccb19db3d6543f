import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pg from 'pg';
import { PostgresStore } from '../../src/store/postgres-store.js';
import { STATEMENTS } from '../../src/store/postgres-statements.js';
import type { CallRecord, JournalWrite, TurnRecord } from '../../src/store/store.js';
import { POSTGRES_URL, scratchStores } from '../crash/scratch-stores.js';

// How PostgreSQL runs the journal's compare-and-sets: a call or turn is found through its primary key,
// on a new store (tables never analyzed) and on one with history and statistics. Each statement is
// planned once a connection and that plan is kept (a generic plan, forced here), so a plan made on a new
// store is the plan it runs while it fills up. (On a small table with statistics PostgreSQL rightly
// scans the table; the next ANALYZE, as it grows, plans again.)

const { schema: newSchema } = scratchStores('plans');

const started = (run: string): CallRecord => ({
  run,
  call: 'c1',
  agent: 'a',
  tool: 't/x',
  arguments: {},
  idempotencyKey: `${run}:c1`,
  state: 'started',
  attempt: 1,
  updatedAt: 1,
});
const running = (run: string): TurnRecord => ({
  run,
  agent: 'a',
  status: 'running',
  version: 1,
  data: {},
  createdAt: 1,
  updatedAt: 1,
});

/** The journal statement's 36 arrays (migration 12) for calls answered and, with `turns`, turns moved on from version 1 (see postgres-statements.ts). */
function answering(runs: readonly string[], turns = true): unknown[][] {
  const columns: unknown[][] = Array.from({ length: 36 }, () => []);
  for (const run of runs) {
    [
      run,
      'c1',
      'a',
      't/x',
      '{}',
      `${run}:c1`,
      'succeeded',
      1,
      '{"status":"ok","output":1,"labels":[]}',
      null,
      2,
      null,
      'rule 1 (t/* allow)',
      'started',
    ].forEach((value, i) => columns[i]!.push(value));
    if (turns) [run, 'a', 'done', 2, '{}', 1, 2, 1].forEach((value, i) => columns[22 + i]!.push(value));
  }
  return columns;
}

/** Runs `work` on a connection that reports the plan of every statement, nested ones too, and returns those plans. */
async function plansOf(work: (client: pg.Client) => Promise<void>): Promise<string[]> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  const plans: string[] = [];
  client.on('notice', (notice) => plans.push(notice.message ?? ''));
  try {
    await client.query("LOAD 'auto_explain'");
    await client.query(
      'SET auto_explain.log_min_duration = 0; SET auto_explain.log_nested_statements = on; SET plan_cache_mode = force_generic_plan; SET client_min_messages = log',
    );
    await work(client);
  } finally {
    await client.end();
  }
  return plans;
}

for (const [analyzed, count] of [
  [false, 200],
  [true, 2_000],
] as const) {
  describe(`PostgreSQL journal plans, ${analyzed ? `on ${count} runs with statistics` : 'on a new store'}`, () => {
    it('finds the calls and turns a commit compares-and-sets through their primary keys', async () => {
      const schema = newSchema();
      const store = await new PostgresStore({ url: POSTGRES_URL, schema }).start();
      const runs = Array.from({ length: count }, (_, i) => `run-${i}`);
      try {
        await store.writeJournal(
          runs.flatMap((run): JournalWrite[] => [
            { call: started(run), expected: undefined },
            { turn: running(run), expectedVersion: undefined },
          ]),
        );
      } finally {
        await store.close();
      }
      if (analyzed) {
        const admin = new pg.Client({ connectionString: POSTGRES_URL });
        await admin.connect();
        await admin.query(`ANALYZE "${schema}".calls; ANALYZE "${schema}".wardrik_turns`);
        await admin.end();
      }
      const statement = STATEMENTS.writeJournal.replaceAll('{s}', `"${schema}"`);
      const plans = await plansOf(async (client) => {
        for (const run of runs.slice(0, 12)) {
          const { rows } = await client.query({ name: 'journal', text: statement, values: answering([run]) });
          assert.deepEqual(rows.map((row: { kind: string }) => row.kind).sort(), ['call', 'turn']);
        }
        // A call's write alone (`writeCall`) is the same statement, a batch of one.
        const { rows } = await client.query({ name: 'journal', text: statement, values: answering(['run-12'], false) });
        assert.deepEqual(
          rows.map((row: { kind: string }) => row.kind),
          ['call'],
        );
      });
      const updates = plans.filter((plan) => /Update on (calls|wardrik_turns)/.test(plan));
      assert.equal(updates.length, 25, plans.join('\n---\n'));
      for (const plan of updates) {
        assert.match(plan, /Index Scan using (calls_pkey|wardrik_turns_pkey)/, plan);
        assert.doesNotMatch(plan, /Seq Scan|calls_by_state|Hash Join/, plan);
      }
    });
  });
}
