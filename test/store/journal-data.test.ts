import 'reflect-metadata';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { z } from 'zod';
import { JournalDataError } from '../../src/errors.js';
import {
  defineTool,
  MemoryStore,
  Wardrik,
  type CallRecord,
  type FullStore,
  type Store,
  type ToolAnswer,
  type WardrikEvent,
} from '../../src/index.js';
import { JOURNAL_FORMAT, readStored, readStoredJson, stored } from '../../src/store/journal-data.js';
import { PostgresStore } from '../../src/store/postgres-store.js';
import { SqliteStore } from '../../src/store/sqlite-store.js';
import { scriptedModel } from '../../src/testing/index.js';
import { writeCall, writeTurn } from '../../src/store/journal-writes.js';

const dir = mkdtempSync(join(tmpdir(), 'wardrik-journal-data-'));
const url = process.env.WARDRIK_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `wardrik_test_journal_${randomBytes(6).toString('hex')}`;
after(async () => {
  rmSync(dir, { recursive: true, force: true });
  const admin = new pg.Pool({ connectionString: url, max: 1 });
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).finally(() => admin.end());
});

const NEWER = JOURNAL_FORMAT + 1;

/** Asserts `error` is the refusal of a journal row: its code, the thing it names, and that it says to upgrade. */
function refused(code: 'journal_newer' | 'journal_malformed', names: string) {
  return (error: unknown): boolean => {
    assert.ok(error instanceof JournalDataError, `a JournalDataError, not ${String(error)}`);
    assert.equal(error.code, code);
    assert.match(error.message, new RegExp(names.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
    assert.match(error.message, /upgrade Wardrik/);
    return true;
  };
}

describe('Journal data', () => {
  const shape = z.object({ input: z.string(), steps: z.number() });

  describe('a value as written', () => {
    it('carries the current format', () => {
      assert.deepEqual(stored({ input: 'hi', steps: 1 }), { format: JOURNAL_FORMAT, input: 'hi', steps: 1 });
    });

    it('reads back as it went in, without its format', () => {
      assert.deepEqual(readStored(shape, stored({ input: 'hi', steps: 1 }), 'run "r1"'), { input: 'hi', steps: 1 });
    });
  });

  describe('a value of format 0 (written before formats)', () => {
    it('is read as the current format', () => {
      assert.deepEqual(readStoredJson(shape, '{"input":"hi","steps":1}', 'run "r1"'), { input: 'hi', steps: 1 });
    });
  });

  describe('a value a newer Wardrik wrote', () => {
    it('is refused, naming the run and saying to upgrade', () => {
      assert.throws(
        () => readStored(shape, { format: NEWER, input: 'hi', steps: 1 }, 'the data of run "r1"'),
        refused('journal_newer', 'the data of run "r1"'),
      );
    });
  });

  describe('a malformed value', () => {
    for (const [what, text] of [
      ['a field of the wrong type', `{"format":${JOURNAL_FORMAT},"input":"hi","steps":"one"}`],
      ['a missing field', '{"input":"hi"}'],
      ['a format that is not a number', '{"format":"1","input":"hi","steps":1}'],
      ['a negative format', '{"format":-1,"input":"hi","steps":1}'],
      ['not an object', '[1,2]'],
      ['not JSON', '{"input":'],
    ] as const) {
      it(`is refused for ${what}, naming the run`, () => {
        assert.throws(
          () => readStoredJson(shape, text, 'the data of run "r1"'),
          refused('journal_malformed', 'the data of run "r1"'),
        );
      });
    }

    it('names the field at fault, never its value', () => {
      assert.throws(
        () => readStoredJson(shape, '{"input":"secret-text","steps":"one"}', 'run "r1"'),
        (error: Error) => /field steps/.test(error.message) && !error.message.includes('secret-text'),
      );
    });
  });
});

/** A SQLite store and a way to change its rows behind its back, as another program would. */
function sqlite(): { store: SqliteStore; path: string; sql: (text: string, ...values: unknown[]) => unknown[] } {
  const path = join(dir, `${randomBytes(4).toString('hex')}.db`);
  const store = new SqliteStore({ path });
  return {
    store,
    path,
    sql: (text, ...values) => {
      const db = new Database(path);
      try {
        const statement = db.prepare(text);
        if (statement.reader) return statement.all(...values);
        statement.run(...values);
        return [];
      } finally {
        db.close();
      }
    },
  };
}

const refund = defineTool({
  name: 'refund',
  description: 'Refund an order.',
  input: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'], additionalProperties: false },
  annotations: { idempotent: true },
  run: ({ id }: { id: string }) => ({ refunded: id }),
});

/** The first warning naming `run`. */
function warning(wardrik: Wardrik, run: string): Promise<string> {
  return new Promise((resolve) => {
    const subscription = wardrik.events$.subscribe((event: WardrikEvent) => {
      if (event.type === 'warning' && event.message.includes(run)) {
        subscription.unsubscribe();
        resolve(event.message);
      }
    });
  });
}

/** A Wardrik on `store` whose agent "support" parks on a refund; returns the parked turn. */
async function parkedTurn(store: Store) {
  const wardrik = await Wardrik.create({ store, recoverMs: Infinity, tools: { shop: [refund] } });
  const warnings: string[] = [];
  wardrik.events$.subscribe((event: WardrikEvent) => {
    if (event.type === 'warning') warnings.push(event.message);
  });
  const model = scriptedModel([
    { toolCalls: [{ name: 'shop__refund', arguments: { id: 'ord_1' } }] },
    { text: 'Refunded.' },
  ]);
  const agent = wardrik.startAgent({ id: 'support', model, tools: ['shop/*'] });
  const turn = await agent.send('Refund ord_1');
  assert.equal(turn.status, 'parked');
  return { wardrik, agent, turn, warnings };
}

describe('A run whose journal this Wardrik cannot read', () => {
  it('is refused when its turn data is of a newer format, naming the run', async () => {
    const { store, sql } = sqlite();
    const wardrik = await Wardrik.create({ store, recoverMs: Infinity, tools: { shop: [refund] } });
    try {
      const agent = wardrik.startAgent({
        id: 'support',
        model: scriptedModel([{ text: 'Hello.' }]),
        tools: ['shop/*'],
      });
      const turn = await agent.send('Hi');
      assert.equal((await agent.result(turn.run)).text, '[scripted] Hello.');
      sql(`UPDATE wardrik_turns SET data = json_set(data, '$.format', ?) WHERE run = ?`, NEWER, turn.run);
      await assert.rejects(agent.result(turn.run), refused('journal_newer', `the data of run "${turn.run}"`));
    } finally {
      await wardrik.close();
      await store.close();
    }
  });

  it('is not resumed when its parked turn data is of a newer format: approving its call warns, naming the run', async () => {
    const { store, sql } = sqlite();
    const { wardrik, turn } = await parkedTurn(store);
    try {
      sql(`UPDATE wardrik_turns SET data = json_set(data, '$.format', ?) WHERE run = ?`, NEWER, turn.run);
      const warned = warning(wardrik, turn.run);
      await wardrik.inbox.approve(turn.parked[0]!.inboxId);
      assert.match(await warned, new RegExp(`the data of run "${turn.run}".*newer Wardrik.*upgrade Wardrik`));
      assert.equal((await store.getTurn(turn.run))?.status, 'parked');
    } finally {
      await wardrik.close();
      await store.close();
    }
  });

  it('is not resumed when its steps are malformed: the warning names the run, and the turn does not finish', async () => {
    const { store, sql } = sqlite();
    const { wardrik, turn, warnings } = await parkedTurn(store);
    try {
      sql(
        `UPDATE wardrik_steps SET data = json_set(data, '$.calls', 'none') WHERE id >> 32 = (SELECT no FROM wardrik_step_runs WHERE run = ?)`,
        turn.run,
      );
      const warned = warning(wardrik, turn.run);
      // The approval is recorded and the call runs; the turn does not go on from a journal it cannot read.
      await wardrik.inbox.approve(turn.parked[0]!.inboxId);
      const message = await warned;
      assert.match(message, new RegExp(`step 0 of run "${turn.run}".*field calls.*upgrade Wardrik`));
      assert.deepEqual(warnings, [message]);
      assert.notEqual((await store.getTurn(turn.run))?.status, 'done');
      assert.equal((await store.getCall(turn.run, turn.parked[0]!.call))?.state, 'succeeded');
    } finally {
      await wardrik.close();
      await store.close();
    }
  });

  it('is not taken up by recovery when a running turn was written by a newer Wardrik: the warning names the run, the turn is left as it is', async () => {
    const store = new MemoryStore();
    const wardrik = await Wardrik.create({ store, recoverMs: Infinity, tools: { shop: [refund] } });
    try {
      const run = `r-${randomBytes(4).toString('hex')}`;
      const record = {
        run,
        agent: 'support',
        status: 'running' as const,
        version: 1,
        data: { format: NEWER, input: 'Hi' },
        createdAt: 1,
        updatedAt: 1,
      };
      await writeTurn(store, record, undefined);
      wardrik.startAgent({ id: 'support', model: scriptedModel([{ text: 'Hello.' }]), tools: ['shop/*'] });
      const warned = warning(wardrik, run);
      assert.deepEqual(await wardrik.agents.recover(), []);
      assert.match(
        await warned,
        new RegExp(`Turn "${run}" of agent "support" is not taken up: .*newer Wardrik.*upgrade Wardrik`),
      );
      assert.deepEqual(await store.getTurn(run), record);
    } finally {
      await wardrik.close();
    }
  });

  it('is refused on the memory store too: the agent checks its own data whatever keeps it', async () => {
    const store = new MemoryStore();
    const wardrik = await Wardrik.create({ store, recoverMs: Infinity, tools: { shop: [refund] } });
    try {
      const agent = wardrik.startAgent({
        id: 'support',
        model: scriptedModel([{ text: 'Hello.' }]),
        tools: ['shop/*'],
      });
      const turn = await agent.send('Hi');
      const record = (await store.getTurn(turn.run))!;
      await writeTurn(
        store,
        { ...record, version: record.version + 1, data: { ...(record.data as object), format: NEWER } },
        record.version,
      );
      await assert.rejects(agent.result(turn.run), refused('journal_newer', `run "${turn.run}"`));
    } finally {
      await wardrik.close();
    }
  });

  it('stops new turns of an agent whose history holds a turn a newer Wardrik wrote, naming that run', async () => {
    const { store: unused, path, sql } = sqlite();
    await unused.close();
    const first = await Wardrik.create({ store: `sqlite:${path}`, recoverMs: Infinity, tools: { shop: [refund] } });
    const earlier = await first
      .startAgent({ id: 'support', model: scriptedModel([{ text: 'Hello.' }]), tools: ['shop/*'] })
      .send('Hi');
    await first.close();
    sql(
      `UPDATE wardrik_steps SET data = json_set(data, '$.format', ?) WHERE id >> 32 = (SELECT no FROM wardrik_step_runs WHERE run = ?)`,
      NEWER,
      earlier.run,
    );
    const fresh = await Wardrik.create({ store: `sqlite:${path}`, recoverMs: Infinity, tools: { shop: [refund] } });
    try {
      const agent = fresh.startAgent({
        id: 'support',
        model: scriptedModel([{ text: 'Hello again.' }]),
        tools: ['shop/*'],
      });
      await assert.rejects(agent.send('Hi again'), refused('journal_newer', `run "${earlier.run}"`));
    } finally {
      await fresh.close();
    }
  });
});

/** Call `c1` of `run`, succeeded with `answer`. */
function succeeded(run: string, args: unknown, answer: ToolAnswer): CallRecord {
  return {
    run,
    call: 'c1',
    agent: 'a',
    tool: 's/t',
    arguments: args,
    idempotencyKey: 'k',
    state: 'succeeded',
    attempt: 1,
    answer,
    updatedAt: 1,
  };
}

for (const backend of ['SQLite', 'PostgreSQL'] as const) {
  describe(`The ${backend} store`, () => {
    async function open(): Promise<{
      store: FullStore;
      sql: (text: string, ...values: unknown[]) => Promise<unknown[]>;
    }> {
      if (backend === 'SQLite') {
        const { store, sql } = sqlite();
        return { store, sql: async (text, ...values) => sql(text.replaceAll('{s}.', ''), ...values) };
      }
      const store = await new PostgresStore({ url, schema }).start();
      return {
        store,
        sql: async (text, ...values) => {
          const admin = new pg.Pool({ connectionString: url, max: 1 });
          try {
            let n = 0;
            return (
              await admin.query(
                text.replaceAll('{s}', `"${schema}"`).replaceAll('?', () => `$${++n}`),
                values,
              )
            ).rows;
          } finally {
            await admin.end();
          }
        },
      };
    }

    it('writes answers, inbox items and MCP server options with their format, and reads them back without it', async () => {
      const { store, sql } = await open();
      try {
        const run = `r-${randomBytes(4).toString('hex')}`;
        const hub = `h-${randomBytes(4).toString('hex')}`;
        const answer = { status: 'ok' as const, output: 1, labels: [] };
        const item = {
          id: `i-${run}`,
          kind: 'park' as const,
          status: 'pending' as const,
          agent: 'a',
          run,
          call: 'c1',
          tool: 's/t',
          arguments: null,
          digest: 'd',
          labels: [],
          reason: 'Why',
          createdAt: 1,
        };
        const server = { hub, name: 'files', options: { transport: { stdio: { command: 'node' } } }, updatedAt: 1 };
        await writeCall(store, succeeded(run, {}, answer), undefined);
        await store.putInboxItem(item);
        await store.putMcpServer(server);
        const rows = [
          ...(await sql(`SELECT answer AS text FROM {s}.calls WHERE run = ?`, run)),
          ...(await sql(`SELECT item AS text FROM {s}.inbox WHERE id = ?`, item.id)),
          ...(await sql(`SELECT options AS text FROM {s}.wardrik_mcp_servers WHERE hub = ?`, hub)),
        ] as { text: unknown }[];
        // PostgreSQL's driver parses json columns; SQLite keeps the text.
        assert.deepEqual(
          rows.map((row) => (typeof row.text === 'string' ? JSON.parse(row.text) : row.text).format),
          [JOURNAL_FORMAT, JOURNAL_FORMAT, JOURNAL_FORMAT],
        );
        assert.deepEqual((await store.getCall(run, 'c1'))?.answer, answer);
        assert.deepEqual(await store.getInboxItem(item.id), item);
        assert.deepEqual(await store.listMcpServers(hub), [server]);
      } finally {
        await store.close();
      }
    });

    it('reads back an answer with no output and an inbox item with no arguments (undefined, which JSON leaves out)', async () => {
      const { store } = await open();
      try {
        const run = `r-${randomBytes(4).toString('hex')}`;
        const answer = { status: 'ok' as const, output: undefined, labels: [] };
        const item = {
          id: `i-${run}`,
          kind: 'park' as const,
          status: 'pending' as const,
          agent: 'a',
          run,
          call: 'c1',
          tool: 's/t',
          arguments: undefined,
          digest: 'd',
          labels: [],
          reason: 'Why',
          createdAt: 1,
        };
        await writeCall(store, succeeded(run, undefined, answer), undefined);
        await store.putInboxItem(item);
        assert.deepEqual((await store.getCall(run, 'c1'))?.answer, { status: 'ok', labels: [] });
        const { arguments: _none, ...read } = item;
        assert.deepEqual(await store.getInboxItem(item.id), read);
      } finally {
        await store.close();
      }
    });

    it('refuses a call answer of a newer format, naming the call and its run', async () => {
      const { store, sql } = await open();
      try {
        const run = `r-${randomBytes(4).toString('hex')}`;
        await writeCall(store, succeeded(run, {}, { status: 'ok', output: 1, labels: [] }), undefined);
        await sql(
          `UPDATE {s}.calls SET answer = ? WHERE run = ?`,
          JSON.stringify({ format: NEWER, status: 'ok', output: 1, labels: [] }),
          run,
        );
        await assert.rejects(store.getCall(run, 'c1'), refused('journal_newer', `call "c1" of run "${run}"`));
      } finally {
        await store.close();
      }
    });

    it('refuses a malformed inbox item, naming it and its run', async () => {
      const { store, sql } = await open();
      try {
        const id = `i-${randomBytes(4).toString('hex')}`;
        const item = {
          id,
          kind: 'approval' as const,
          status: 'pending' as const,
          agent: 'a',
          run: 'r9',
          call: 'c1',
          tool: 's/t',
          arguments: {},
          digest: 'd',
          labels: [],
          reason: 'Why',
          createdAt: 1,
        };
        await store.putInboxItem(item);
        assert.deepEqual(await store.getInboxItem(id), item);
        await sql(
          `UPDATE {s}.inbox SET item = ? WHERE id = ?`,
          JSON.stringify({ ...item, format: JOURNAL_FORMAT, labels: 'outside' }),
          id,
        );
        await assert.rejects(store.getInboxItem(id), refused('journal_malformed', `inbox item "${id}" of run "r9"`));
      } finally {
        await store.close();
      }
    });

    it('refuses a remembered result of a newer format, naming its key', async () => {
      const { store, sql } = await open();
      try {
        const key = `k-${randomBytes(4).toString('hex')}`;
        await store.putRemembered({
          key,
          digest: 'd',
          answer: { status: 'ok', output: 2, labels: [] },
          expiresAt: 100,
        });
        assert.deepEqual((await store.getRemembered(key, 0))?.answer, { status: 'ok', output: 2, labels: [] });
        await sql(`UPDATE {s}.remembered SET answer = ? WHERE key = ?`, JSON.stringify({ format: NEWER }), key);
        await assert.rejects(store.getRemembered(key, 0), refused('journal_newer', `key "${key}"`));
      } finally {
        await store.close();
      }
    });
  });
}
