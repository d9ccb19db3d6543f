import 'reflect-metadata';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import { scriptedModel } from '../../src/testing/index.js';
import { startAskingHttp } from './fixtures/asking-http.js';
import { harness } from './helpers.js';
import { eventually } from '../eventually.js';

/**
 * A server's question answered while its call's turn is still parking: the call settles before the turn
 * record says `parked`. The turn must still go on once it is parked, not wait for the next recovery
 * pass. PostgreSQL holds the turn's parking write (a row lock taken by another connection) so the
 * answer lands in exactly that moment.
 */
const ASKING = fileURLToPath(new URL('./fixtures/asking-server.js', import.meta.url));
const url = process.env.WARDRIK_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `wardrik_test_qrace_${randomBytes(5).toString('hex')}`;
const admin = new pg.Pool({ connectionString: url, max: 4 });
after(async () => {
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
  await admin.end();
});

describe('A question answered while its turn parks', () => {
  it('resumes the turn once it has parked, though the call settled before the turn record said parked', async () => {
    const h = await harness(
      { servers: { q: { transport: { stdio: { command: process.execPath, args: [ASKING] } } } } },
      { store: `${url}?schema=${schema}` },
    );
    const locker = await admin.connect();
    try {
      await h.toolsChanged('q', 5);
      const agent = h.wardrik.startAgent({
        id: 'racer',
        model: scriptedModel([
          { toolCalls: [{ name: 'q__ask' }] },
          (call) => ({ text: `got ${call.lastToolResult ?? 'nothing'}` }),
        ]),
        tools: ['q/*'],
      });
      const sending = agent.send('Ask the server');
      const started = await h.until((event) => event.type === 'run.started');
      const run = (started as { run: string }).run;
      // Hold the turn's row: its parking write waits for this transaction.
      await locker.query('BEGIN');
      await locker.query(`SELECT 1 FROM "${schema}".wardrik_turns WHERE run = $1 FOR UPDATE`, [run]);
      const asked = await h.until((event) => event.type === 'tool.parked');
      await h.wardrik.inbox.answer((asked as { inboxId: string }).inboxId, {
        action: 'accept',
        content: { name: 'Quick' },
      });
      await h.until((event) => event.type === 'tool.succeeded');
      let sent = false;
      void sending.then(() => (sent = true));
      // The turn's write waits for the locker's row lock, as PostgreSQL says, so it cannot have finished.
      const lockerPid = (await locker.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      await eventually(
        "a write to wait for the locker's row lock",
        async () =>
          (
            await admin.query<{ waiting: number }>(
              'SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE $1 = ANY (pg_blocking_pids(pid))',
              [lockerPid],
            )
          ).rows[0]!.waiting > 0,
      );
      assert.equal(sent, false, 'the turn is still writing its parked record');
      await locker.query('COMMIT');
      const parked = await sending;
      assert.equal(parked.status, 'parked', JSON.stringify(parked));
      const calls = await admin.query<{ state: string }>(`SELECT state FROM "${schema}".calls WHERE run = $1`, [run]);
      assert.deepEqual(
        calls.rows.map((row) => row.state),
        ['succeeded'],
        "the call's answer is in the journal",
      );
      const status = async () =>
        (await admin.query<{ status: string }>(`SELECT status FROM "${schema}".wardrik_turns WHERE run = $1`, [run]))
          .rows[0]?.status;
      await eventually('the turn goes on after its question was answered', async () => (await status()) === 'done');
      const done = await agent.result(run);
      assert.match(done.text, /Quick/);
    } finally {
      await locker.query('ROLLBACK').catch(() => undefined);
      locker.release();
      await h.close();
    }
  });

  it(
    "writes the answer of a call that settles while the parked turn's last writes commit, and the turn goes on",
    { timeout: 60_000 },
    async () => {
      const server = await startAskingHttp();
      const h = await harness(
        { servers: { q: { transport: { http: { url: server.url } } } } },
        { store: `${url}?schema=${schema}` },
      );
      const turnLock = await admin.connect();
      const callLock = await admin.connect();
      try {
        await h.toolsChanged('q', 5);
        const model = scriptedModel([
          {
            toolCalls: [
              { id: 'one', name: 'q__ask' },
              { id: 'two', name: 'q__ask' },
            ],
          },
          (call) => ({ text: `got ${call.lastToolResult ?? 'nothing'}` }),
        ]);
        const agent = h.wardrik.startAgent({ id: 'pair', model, tools: ['q/*'] });
        const sending = agent.send('Ask the server twice');
        const run = ((await h.until((event) => event.type === 'run.started')) as { run: string }).run;
        await turnLock.query('BEGIN');
        await turnLock.query(`SELECT 1 FROM "${schema}".wardrik_turns WHERE run = $1 FOR UPDATE`, [run]);
        const first = (await h.until((event) => event.type === 'tool.parked' && event.call === '0.one')) as {
          inboxId: string;
        };
        const second = (await h.until((event) => event.type === 'tool.parked' && event.call === '0.two')) as {
          inboxId: string;
        };
        // The first answer comes while the turn's parked record waits: it is held with the turn's writes.
        await h.wardrik.inbox.answer(first.inboxId, { action: 'accept', content: { name: 'First' } });
        await h.until((event) => event.type === 'tool.succeeded' && event.call === '0.one');
        // Its commit will wait on this lock, so the second answer comes while the turn's last writes commit.
        await callLock.query('BEGIN');
        await callLock.query(`SELECT 1 FROM "${schema}".calls WHERE run = $1 AND call = '0.one' FOR UPDATE`, [run]);
        await turnLock.query('COMMIT');
        // The turn is parked; its last writes (the first answer) now wait on the call's row.
        await h.until((event) => event.type === 'run.parked');
        await h.wardrik.inbox.answer(second.inboxId, { action: 'accept', content: { name: 'Second' } });
        await h.until((event) => event.type === 'tool.succeeded' && event.call === '0.two');
        await callLock.query('COMMIT');
        assert.equal((await sending).status, 'parked');
        const states = async () =>
          (
            await admin.query<{ call: string; state: string }>(
              `SELECT call, state FROM "${schema}".calls WHERE run = $1 ORDER BY call`,
              [run],
            )
          ).rows;
        await eventually('both answers in the journal', async () =>
          (await states()).every((row) => row.state === 'succeeded'),
        );
        const done = await agent.result(run);
        assert.equal(done.status, 'done', JSON.stringify(done));
        assert.match(done.text, /Second/);
      } finally {
        for (const lock of [turnLock, callLock]) {
          await lock.query('ROLLBACK').catch(() => undefined);
          lock.release();
        }
        await h.close();
        await server.close();
      }
    },
  );
});
