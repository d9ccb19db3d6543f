import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { ConfigurationError, StoreError } from '../../src/errors.js';
import { openStore, redact } from '../../src/store/open-store.js';
import { PostgresStore } from '../../src/store/postgres-store.js';
import { MIGRATIONS } from '../../src/store/postgres-migrations.js';
import type { JournalWrite } from '../../src/store/store.js';
import { type ContractClock, storeContract } from '../../src/testing/index.js';
import { addSpend, leaseRun, writeCall } from '../../src/store/journal-writes.js';

const url = process.env.WARDRIK_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
// This file's own schemas, all dropped at the end: tests of other files and runs never meet.
const prefix = `wardrik_test_${randomBytes(6).toString('hex')}`;
const contractSchema = `${prefix}_contract`;
const admin = new pg.Pool({ connectionString: url, max: 2, connectionTimeoutMillis: 5_000 });

before(async () => {
  try {
    await admin.query('SELECT 1');
  } catch (error) {
    // Never skipped: a store that is not tested is not known to work.
    const where = process.env.CI === 'true' ? 'CI must provide it' : 'Start it';
    throw new Error(
      `PostgreSQL is not reachable at ${redact(url)} (${(error as Error).message || (error as Error).name}), so the PostgresStore tests cannot run. ` +
        `${where}: pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start, or set WARDRIK_TEST_POSTGRES_URL.`,
    );
  }
});

after(async () => {
  // Nothing to drop when the server was never reached; the failure above already says why.
  const reachable = await admin.query('SELECT 1').then(
    () => true,
    () => false,
  );
  if (!reachable) return admin.end();
  const { rows } = await admin.query<{ nspname: string }>('SELECT nspname FROM pg_namespace WHERE nspname LIKE $1', [
    `${prefix}%`,
  ]);
  for (const { nspname } of rows) await admin.query(`DROP SCHEMA "${nspname}" CASCADE`);
  await admin.end();
});

/** Undoes migration 12 on a new schema: what a version-11 Wardrik left (no column for what decided a call, migration 10's journal function). */
function toVersion11(schema: string): string {
  const s = `"${schema}"`;
  const ten = MIGRATIONS[9]!;
  const journal = ten.slice(ten.indexOf('CREATE FUNCTION')).replaceAll('{s}', s);
  return `DROP FUNCTION ${s}.wardrik_journal; ALTER TABLE ${s}.calls DROP COLUMN decided_by; ${journal}; DELETE FROM ${s}.wardrik_migrations WHERE version >= 12`;
}

/** Undoes migrations 12 to 10 on a new schema: what a version-9 Wardrik left (wardrik_journal_row beside wardrik_journal). */
function toVersion9(schema: string): string {
  const s = `"${schema}"`;
  const nine = MIGRATIONS[8]!;
  const functions = nine.slice(nine.indexOf('CREATE FUNCTION')).replaceAll('{s}', s);
  return `${toVersion11(schema)}; DROP TABLE ${s}.wardrik_audit; DROP FUNCTION ${s}.wardrik_journal; ${functions}; DELETE FROM ${s}.wardrik_migrations WHERE version >= 10`;
}

/** Undoes migrations 10 and 9 on a new schema: what a version-8 Wardrik left (leases' times from the nodes' clocks). */
function toVersion8(schema: string): string {
  const s = `"${schema}"`;
  const [journal, row] = [MIGRATIONS[6]!, MIGRATIONS[7]!].map((sql) => sql.replaceAll('{s}', s));
  return `${toVersion9(schema)}; DROP FUNCTION ${s}.wardrik_journal; DROP FUNCTION ${s}.wardrik_journal_row; ${journal}; ${row}; DELETE FROM ${s}.wardrik_migrations WHERE version >= 9`;
}

/** Undoes migrations 10 to 8 on a new schema: what a version-7 Wardrik left (every journal commit through wardrik_journal). */
function toVersion7(schema: string): string {
  const s = `"${schema}"`;
  return `${toVersion8(schema)}; DROP FUNCTION ${s}.wardrik_journal_row; DELETE FROM ${s}.wardrik_migrations WHERE version >= 8`;
}

/** Undoes migrations 10 to 7 on a new schema: what a version-6 Wardrik left (its journal statement was its own). */
function toVersion6(schema: string): string {
  const s = `"${schema}"`;
  return `${toVersion7(schema)}; DROP FUNCTION ${s}.wardrik_journal; DELETE FROM ${s}.wardrik_migrations WHERE version >= 7`;
}

/** Undoes migrations 10 to 6 on a new schema: what a version-5 Wardrik left (calls_by_run). */
function toVersion5(schema: string): string {
  const s = `"${schema}"`;
  return `${toVersion6(schema)}; CREATE INDEX calls_by_run ON ${s}.calls (run, seq); DELETE FROM ${s}.wardrik_migrations WHERE version >= 6`;
}

/** Undoes migrations 9 to 4 on a new schema: what a version-3 Wardrik left (money in dollars, no claims or holds). */
function toVersion3(schema: string): string {
  const s = `"${schema}"`;
  return `${toVersion5(schema)}; DROP INDEX ${s}.wardrik_turns_finished, ${s}.wardrik_turns_finished_at; ALTER TABLE ${s}.inbox DROP COLUMN run;
    DROP TABLE ${s}.wardrik_remembered_claims, ${s}.wardrik_spend_holds, ${s}.wardrik_tool_costs;
    ALTER TABLE ${s}.spend DROP COLUMN micro_usd; ALTER TABLE ${s}.spend ADD COLUMN usd double precision NOT NULL DEFAULT 0;
    ALTER TABLE ${s}.calls DROP COLUMN cost_micro_usd; ALTER TABLE ${s}.calls ADD COLUMN cost_usd double precision;
    DELETE FROM ${s}.wardrik_migrations WHERE version >= 4`;
}

/**
 * The contract's store clock on PostgreSQL, whose leases read the server's: a lease of `ttlMs` lasts
 * `ttlMs * SCALE` ms and half a SCALE more (the real milliseconds a test takes never reach a boundary of
 * the contract's), and moving the contract's clock on by `ms` moves every lease's end back by `ms * SCALE`.
 */
const SCALE = 10_000;
let contractNow = 0;
const contractClock: ContractClock = {
  at: async (ms) => {
    const delta = ms - contractNow;
    contractNow = ms;
    if (delta !== 0)
      await admin.query(`UPDATE "${contractSchema}".wardrik_leases SET until = until - $1`, [delta * SCALE]);
  },
};
const stretched = (ttlMs: number) => ttlMs * SCALE + SCALE / 2;

class ContractPostgresStore extends PostgresStore {
  override writeJournal(writes: readonly JournalWrite[]): Promise<boolean[]> {
    return super.writeJournal(
      writes.map((write) =>
        'lease' in write ? { lease: { ...write.lease, ttlMs: stretched(write.lease.ttlMs) } } : write,
      ),
    );
  }
}

storeContract('PostgresStore', async () => new ContractPostgresStore({ url, schema: contractSchema }).start(), {
  durable: true,
  synchronous: false,
  clock: contractClock,
});

describe('PostgresStore', () => {
  describe('when it starts', () => {
    it('migrates a new schema once, even when several nodes start together', async () => {
      const schema = `${prefix}_race`;
      const stores = Array.from({ length: 4 }, () => new PostgresStore({ url, schema }));
      try {
        await Promise.all(stores.map((store) => store.start()));
        const { rows } = await admin.query(`SELECT version FROM "${schema}".wardrik_migrations ORDER BY version`);
        assert.deepEqual(rows, [
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
        ]);
      } finally {
        await Promise.all(stores.map((store) => store.close()));
      }
    });

    it('upgrades a version-11 schema: its calls read with what decided them unknown, a parked one keeps the rule that asked', async () => {
      const schema = `${prefix}_v11`;
      await new PostgresStore({ url, schema }).start().then((store) => store.close());
      const parked = JSON.stringify({
        format: 1,
        status: 'parked',
        kind: 'approval',
        inboxId: 'i1',
        reason: 'why',
        labels: [],
        approval: { requester: 'dana', decidedBy: 'rule 2 (t/* ask)' },
      });
      await admin.query(
        `${toVersion11(schema)};
         INSERT INTO "${schema}".calls (run, call, agent, tool, arguments, idempotency_key, state, attempt, answer, inbox_id, updated_at)
           VALUES ('run-1', 'done', 'a', 't/x', '{}', 'k1', 'succeeded', 1, '{"format":1,"status":"ok","output":1,"labels":[]}', NULL, 1),
                  ('run-1', 'asked', 'a', 't/x', '{}', 'k2', 'parked', 0, '${parked}', 'i1', 1)`,
      );
      const store = await new PostgresStore({ url, schema }).start();
      try {
        const done = await store.getCall('run-1', 'done');
        assert.equal(done !== undefined && 'decidedBy' in done, false, 'unknown: journaled before Wardrik kept it');
        const asked = await store.getCall('run-1', 'asked');
        assert.equal(asked?.decidedBy, 'rule 2 (t/* ask)');
        assert.deepEqual(asked?.answer?.status === 'parked' ? asked.answer.approval : undefined, { requester: 'dana' });
        // Both kinds of journal write take it: a first write and a compare-and-set.
        const decided = {
          ...done!,
          call: 'new',
          idempotencyKey: 'k3',
          state: 'started' as const,
          decidedBy: 'rule 1 (t/* allow)',
        };
        delete (decided as { answer?: unknown }).answer;
        assert.equal(await writeCall(store, decided, undefined), true);
        const answered = { ...decided, state: 'succeeded' as const, answer: done!.answer!, updatedAt: 2 };
        assert.equal(await writeCall(store, answered, 'started'), true);
        assert.deepEqual(await store.getCall('run-1', 'new'), answered);
      } finally {
        await store.close();
      }
      const { rows } = await admin.query(`SELECT max(version) AS version FROM "${schema}".wardrik_migrations`);
      assert.deepEqual(rows, [{ version: 12 }]);
    });

    it('upgrades a version-9 schema, dropping wardrik_journal_row: every write goes through wardrik_journal', async () => {
      const schema = `${prefix}_v9`;
      await new PostgresStore({ url, schema }).start().then((store) => store.close());
      await admin.query(
        `${toVersion9(schema)};
         INSERT INTO "${schema}".calls (run, call, agent, tool, arguments, idempotency_key, state, attempt, updated_at)
           VALUES ('run-1', 'c1', 'a', 't/x', '{}', 'k1', 'started', 1, 1)`,
      );
      const functions = async () =>
        (
          await admin.query<{ proname: string }>(
            'SELECT proname FROM pg_proc WHERE pronamespace = $1::regnamespace ORDER BY proname',
            [schema],
          )
        ).rows.map((row) => row.proname);
      assert.deepEqual(await functions(), ['wardrik_journal', 'wardrik_journal_row']);
      const store = await new PostgresStore({ url, schema }).start();
      try {
        assert.deepEqual(await functions(), ['wardrik_journal']);
        // Recovery's lease, taken only while the call is still started, is a journal write now.
        const take = { lease: { run: 'run-1', node: 'node-b', ttlMs: 100, whileStarted: 'c1' } };
        assert.deepEqual(await store.writeJournal([take]), [true]);
        assert.deepEqual(await store.writeJournal([{ release: { run: 'run-1', node: 'node-b' } }]), [true]);
        const answered = { ...(await store.getCall('run-1', 'c1'))!, state: 'succeeded' as const, updatedAt: 2 };
        assert.equal(await writeCall(store, answered, 'started'), true);
        assert.deepEqual(await store.writeJournal([take]), [false]);
      } finally {
        await store.close();
      }
      const { rows } = await admin.query(`SELECT max(version) AS version FROM "${schema}".wardrik_migrations`);
      assert.deepEqual(rows, [{ version: 12 }]);
    });

    it('upgrades a version-7 schema, through the function of single values and back to one encoding: rows written before are answered, moved on and read as before', async () => {
      const schema = `${prefix}_v7`;
      await new PostgresStore({ url, schema }).start().then((store) => store.close());
      await admin.query(
        `${toVersion7(schema)};
         INSERT INTO "${schema}".calls (run, call, agent, tool, arguments, idempotency_key, state, attempt, updated_at)
           VALUES ('run-1', 'c1', 'a', 't/x', '{"n":1}', 'k1', 'started', 1, 1);
         INSERT INTO "${schema}".wardrik_steps (run, idx, data, created_at) VALUES ('run-1', 0, '{"kind":"model"}', 1);
         INSERT INTO "${schema}".wardrik_turns (run, agent, status, version, data, created_at, updated_at) VALUES ('run-1', 'a', 'running', 1, '{}', 1, 1);
         INSERT INTO "${schema}".wardrik_leases (run, node, until) VALUES ('run-1', 'node-a', date_part('epoch', now()) * 1000 + 60000);
         INSERT INTO "${schema}".spend (agent, micro_usd) VALUES ('a', 5)`,
      );
      const store = await new PostgresStore({ url, schema }).start();
      try {
        const answered = {
          run: 'run-1',
          call: 'c1',
          agent: 'a',
          tool: 't/x',
          arguments: { n: 1 },
          idempotencyKey: 'k1',
          state: 'succeeded' as const,
          attempt: 1,
          answer: { status: 'ok' as const, output: 1, labels: [] },
          updatedAt: 2,
        };
        const next = {
          run: 'run-1',
          call: 'c2',
          agent: 'a',
          tool: 't/x',
          arguments: {},
          idempotencyKey: 'k2',
          state: 'started' as const,
          attempt: 1,
          updatedAt: 2,
        };
        const done = {
          run: 'run-1',
          agent: 'a',
          status: 'done' as const,
          version: 2,
          data: { answer: 1 },
          createdAt: 1,
          updatedAt: 2,
        };
        // One row of each kind (once one call of wardrik_journal_row, now of wardrik_journal). The lease is another node's, still held.
        assert.deepEqual(
          await store.writeJournal([
            { call: answered, expected: 'started' },
            { step: { run: 'run-1', index: 1, data: { kind: 'tools' }, createdAt: 2 } },
            { step: { run: 'run-1', index: 0, data: { kind: 'again' }, createdAt: 2 } },
            { spend: { agent: 'a', microUsd: 10 } },
            { call: next, expected: undefined },
            { turn: done, expectedVersion: 1 },
            { lease: { run: 'run-1', node: 'node-b', ttlMs: 100 } },
          ]),
          [true, true, false, true, true, true, false],
        );
        assert.deepEqual(await store.listCalls({ run: 'run-1' }), [answered, next]);
        assert.deepEqual(
          (await store.listSteps('run-1')).map((step) => step.data),
          [{ kind: 'model' }, { kind: 'tools' }],
        );
        assert.deepEqual(await store.getTurn('run-1'), done);
        assert.equal(await store.getSpend('a'), 15);
        // Compares-and-sets that find their rows moved on take nothing.
        assert.deepEqual(
          await store.writeJournal([
            { call: answered, expected: 'started' },
            { turn: done, expectedVersion: 1 },
          ]),
          [false, false],
        );
        // node-a's lease lapses (two minutes on the server's clock).
        await admin.query(`UPDATE "${schema}".wardrik_leases SET until = until - 120000`);
        assert.deepEqual(await store.writeJournal([{ lease: { run: 'run-1', node: 'node-b', ttlMs: 100 } }]), [true]);
      } finally {
        await store.close();
      }
      const { rows } = await admin.query(`SELECT max(version) AS version FROM "${schema}".wardrik_migrations`);
      assert.deepEqual(rows, [{ version: 12 }]);
    });

    it('upgrades a version-6 schema, adding the journal function: calls, turns and leases are written and answered as before', async () => {
      const schema = `${prefix}_v6`;
      await new PostgresStore({ url, schema }).start().then((store) => store.close());
      await admin.query(
        `${toVersion6(schema)};
         INSERT INTO "${schema}".calls (run, call, agent, tool, arguments, idempotency_key, state, attempt, updated_at)
           VALUES ('run-1', 'c1', 'a', 't/x', '{}', 'k1', 'started', 1, 1);
         INSERT INTO "${schema}".wardrik_turns (run, agent, status, version, data, created_at, updated_at) VALUES ('run-1', 'a', 'running', 1, '{}', 1, 1);
         INSERT INTO "${schema}".wardrik_leases (run, node, until) VALUES ('run-1', 'node-a', date_part('epoch', now()) * 1000 + 60000)`,
      );
      const store = await new PostgresStore({ url, schema }).start();
      try {
        const answered = {
          run: 'run-1',
          call: 'c1',
          agent: 'a',
          tool: 't/x',
          arguments: {},
          idempotencyKey: 'k1',
          state: 'succeeded' as const,
          attempt: 1,
          answer: { status: 'ok' as const, output: 1, labels: [] },
          updatedAt: 2,
        };
        const done = {
          run: 'run-1',
          agent: 'a',
          status: 'done' as const,
          version: 2,
          data: { answer: 1 },
          createdAt: 1,
          updatedAt: 2,
        };
        assert.deepEqual(
          await store.writeJournal([
            { call: answered, expected: 'started' },
            { turn: done, expectedVersion: 1 },
            { lease: { run: 'run-1', node: 'node-b', ttlMs: 100 } },
            { step: { run: 'run-1', index: 0, data: 'tools', createdAt: 2 } },
          ]),
          [true, true, false, true],
        );
        assert.deepEqual(await store.getCall('run-1', 'c1'), answered);
        assert.deepEqual(await store.getTurn('run-1'), done);
        assert.deepEqual(await store.writeJournal([{ release: { run: 'run-1', node: 'node-a' } }]), [true]);
        assert.equal(await leaseRun(store, 'run-1', 'node-b', 100), true);
      } finally {
        await store.close();
      }
      const { rows } = await admin.query(`SELECT max(version) AS version FROM "${schema}".wardrik_migrations`);
      assert.deepEqual(rows, [{ version: 12 }]);
    });

    it("upgrades a version-5 schema, dropping calls_by_run: a run's calls still list in the order first written", async () => {
      const schema = `${prefix}_v5`;
      await new PostgresStore({ url, schema }).start().then((store) => store.close());
      await admin.query(
        `${toVersion5(schema)};
         INSERT INTO "${schema}".calls (run, call, agent, tool, arguments, idempotency_key, state, attempt, updated_at)
           VALUES ('run-1', 'c2', 'a', 't/x', '{}', 'k2', 'succeeded', 1, 1), ('run-1', 'c1', 'a', 't/x', '{}', 'k1', 'started', 1, 2)`,
      );
      const store = await new PostgresStore({ url, schema }).start();
      try {
        assert.deepEqual(
          (await store.listCalls({ run: 'run-1' })).map((call) => call.call),
          ['c2', 'c1'],
        );
        assert.deepEqual(
          (await store.listCalls({ run: 'run-1', state: 'started' })).map((call) => call.call),
          ['c1'],
        );
        assert.deepEqual(
          (await store.listCalls({ state: 'started' })).map((call) => call.call),
          ['c1'],
        );
      } finally {
        await store.close();
      }
      const { rows } = await admin.query(
        `SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND tablename = 'calls' ORDER BY indexname`,
        [schema],
      );
      assert.deepEqual(rows, [{ indexname: 'calls_by_state' }, { indexname: 'calls_pkey' }]);
    });

    it('upgrades a version-3 schema, turning its dollars into micro-dollars', async () => {
      const schema = `${prefix}_v3`;
      await new PostgresStore({ url, schema }).start().then((store) => store.close());
      await admin.query(
        `${toVersion3(schema)};
         INSERT INTO "${schema}".spend (agent, usd) VALUES ('a', 0.30000000000000004);
         INSERT INTO "${schema}".calls (run, call, agent, tool, arguments, idempotency_key, state, attempt, updated_at, cost_usd)
           VALUES ('run-1', 'c1', 'a', 't/x', '{}', 'k', 'succeeded', 1, 1, 0.1)`,
      );
      const store = await new PostgresStore({ url, schema }).start();
      try {
        assert.equal(await store.getSpend('a'), 300_000);
        assert.equal(await addSpend(store, 'a', 700_000), 1_000_000);
        assert.equal((await store.getCall('run-1', 'c1'))?.costUsd, 0.1);
        assert.equal((await store.listRuns({ agent: 'a' }))[0]?.costUsd, 0.1);
      } finally {
        await store.close();
      }
    });

    it('upgrades a version-1 schema to the current version, keeping its data', async () => {
      const schema = `${prefix}_v1`;
      await new PostgresStore({ url, schema }).start().then((store) => store.close());
      // What a version-1 Wardrik left: migrations 2 to 4 (tables, columns, an index) absent and unrecorded.
      await admin.query(
        `${toVersion3(schema)};
         DROP TABLE "${schema}".wardrik_leases, "${schema}".wardrik_turns, "${schema}".wardrik_steps, "${schema}".wardrik_mcp_servers;
         DROP INDEX "${schema}".calls_by_run; ALTER TABLE "${schema}".calls DROP COLUMN cost_usd;
         DELETE FROM "${schema}".wardrik_migrations WHERE version >= 2;
         INSERT INTO "${schema}".spend (agent, usd) VALUES ('a', 1.5)`,
      );
      const store = await new PostgresStore({ url, schema }).start();
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
        const { rows } = await admin.query(`SELECT version FROM "${schema}".wardrik_migrations ORDER BY version`);
        assert.deepEqual(rows, [
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
        ]);
      } finally {
        await store.close();
      }
    });

    it('refuses a schema written by a newer Wardrik, saying to upgrade', async () => {
      const schema = `${prefix}_newer`;
      await new PostgresStore({ url, schema }).start().then((store) => store.close());
      await admin.query(`INSERT INTO "${schema}".wardrik_migrations (version) VALUES (99)`);
      const store = new PostgresStore({ url, schema });
      await assert.rejects(store.start(), {
        name: 'StoreError',
        message:
          /version 99, newer than this Wardrik knows \(12\).*Fix: a newer Wardrik wrote this store; upgrade Wardrik/,
      });
      await store.close();
    });

    it('refuses a schema name that is not a plain identifier', () => {
      assert.throws(() => new PostgresStore({ url, schema: 'bad"; DROP TABLE x; --' }), ConfigurationError);
    });

    it('is opened by openStore from a postgres URL with ?schema', async () => {
      const schema = `${prefix}_opened`;
      const store = await openStore(`${url}?schema=${schema}`);
      try {
        assert.ok(store instanceof PostgresStore);
        assert.equal(store.schema, schema);
        assert.equal(await addSpend(store, 'a', 1), 1);
      } finally {
        await store.close();
      }
    });
  });

  describe('when the database is unreachable', () => {
    it('fails with a StoreError naming host and port, the cause and the fix, never the password', async () => {
      const store = new PostgresStore({ url: 'postgres://wardrik:hunter2@127.0.0.1:1/test' });
      await assert.rejects(store.start(), (error: unknown) => {
        assert.ok(error instanceof StoreError);
        assert.match(error.message, /127\.0\.0\.1:1\b/);
        assert.match(error.message, /ECONNREFUSED/);
        assert.match(error.message, /start PostgreSQL, or correct the host and port/);
        assert.doesNotMatch(error.message, /hunter2/);
        return true;
      });
      await assert.rejects(store.getSpend('a'), StoreError, 'every operation reports it, not only start');
      await store.close();
    });

    it('fails openStore the same way', async () => {
      await assert.rejects(openStore('postgresql://wardrik:hunter2@127.0.0.1:1/test'), (error: unknown) => {
        assert.ok(error instanceof StoreError);
        assert.match(error.message, /127\.0\.0\.1:1\b/);
        assert.doesNotMatch(error.message, /hunter2/);
        return true;
      });
    });
  });
});
