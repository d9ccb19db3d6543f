import 'reflect-metadata';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { container as root } from 'tsyringe';
import { defineTool, Tokens, Wardrik } from '../../src/index.js';
import { openStore } from '../../src/store/open-store.js';
import { scriptedModel } from '../../src/testing/index.js';

// Journals written by Wardrik before its stored JSON carried a format (test/fixtures/journal-format-0,
// made by running that Wardrik). This Wardrik must read every row of them and take their runs on.
const FIXTURES = new URL('../../../test/fixtures/journal-format-0/', import.meta.url);
const url = process.env.WARDRIK_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const dir = mkdtempSync(join(tmpdir(), 'wardrik-journal-fixtures-'));
const schema = `wardrik_test_fixture_${randomBytes(6).toString('hex')}`;
after(async () => {
  rmSync(dir, { recursive: true, force: true });
  const admin = new pg.Pool({ connectionString: url, max: 1 });
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).finally(() => admin.end());
});

// Later than every time in the fixtures (written on 2026-11-30 around 11:00 UTC, the in-doubt item an
// hour on), earlier than the remembered result's expiry (a day on).
const NOW = Date.UTC(2026, 10, 30, 14);

interface Runs {
  readonly finished: string;
  readonly approved: string;
  readonly parked: string;
  readonly 'in-doubt': string;
}

/** Loads the SQLite fixture into a new file; returns its store name. */
function sqliteFixture(): { store: string; runs: Runs } {
  const file = join(dir, `journal-${randomBytes(4).toString('hex')}.db`);
  const db = new Database(file);
  db.exec(readFileSync(new URL('journal.sql', FIXTURES), 'utf8'));
  db.close();
  return { store: `sqlite:${file}`, runs: JSON.parse(readFileSync(new URL('runs.json', FIXTURES), 'utf8')) as Runs };
}

/** Restores the PostgreSQL fixture (a pg_dump) into this file's own schema; returns its store name. */
async function postgresFixture(): Promise<{ store: string; runs: Runs }> {
  const dump = readFileSync(new URL('journal.pg.sql', FIXTURES), 'utf8')
    .split('\n')
    // psql's own commands (\restrict) are not SQL.
    .filter((line) => !line.startsWith('\\'))
    .join('\n')
    .replaceAll('wardrik_fixture', schema);
  const admin = new pg.Pool({ connectionString: url, max: 1 });
  try {
    await admin.query(dump);
  } finally {
    await admin.end();
  }
  return {
    store: `${url}?schema=${schema}`,
    runs: JSON.parse(readFileSync(new URL('runs.pg.json', FIXTURES), 'utf8')) as Runs,
  };
}

/** The fixture's tools, as its Wardrik offered them; `charged` counts the charges that ran here. */
function shop(charged: string[]) {
  return [
    defineTool({
      name: 'find_order',
      description: 'Find an order by id.',
      input: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'], additionalProperties: false },
      annotations: { readOnly: true },
      run: ({ id }: { id: string }) => ({ id, status: 'shipped' }),
    }),
    defineTool({
      name: 'rate',
      description: 'Today’s exchange rate.',
      input: {
        type: 'object',
        properties: { currency: { type: 'string' } },
        required: ['currency'],
        additionalProperties: false,
      },
      annotations: { idempotent: true, remember: true },
      run: ({ currency }: { currency: string }) => ({ currency, rate: 1.08 }),
    }),
    defineTool({
      name: 'refund',
      description: 'Refund an order.',
      input: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'], additionalProperties: false },
      annotations: { idempotent: true },
      run: ({ id }: { id: string }) => ({ refunded: id }),
    }),
    defineTool({
      name: 'charge',
      description: 'Charge a card.',
      input: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'], additionalProperties: false },
      run: ({ id }: { id: string }) => {
        charged.push(id);
        return { charged: id };
      },
    }),
  ];
}

async function open(name: string, charged: string[] = []) {
  const store = await openStore(name);
  const container = root.createChildContainer();
  container.register(Tokens.Clock, { useValue: { now: () => NOW } });
  const policy = {
    rules: [
      { match: 'shop/refund', action: 'ask' as const },
      { match: 'shop/charge', action: 'allow' as const },
      { match: 'shop/rate', action: 'allow' as const },
    ],
  };
  const wardrik = await Wardrik.create({
    store,
    container,
    recoverMs: Infinity,
    runner: { node: 'upgraded' },
    policy,
    tools: { shop: shop(charged) },
  });
  return {
    wardrik,
    store,
    async close() {
      await wardrik.close();
      await store.close();
    },
  };
}

/** What the model of a resumed turn is told, and what it answers. */
function resumingModel() {
  return scriptedModel([(call) => ({ text: `Then: ${call.lastToolResult}` })], { name: 'fixture' });
}

for (const backend of ['SQLite', 'PostgreSQL'] as const) {
  const load = backend === 'SQLite' ? async () => sqliteFixture() : postgresFixture;

  describe(`A ${backend} journal written before stored JSON had a format`, () => {
    let fixture: { store: string; runs: Runs };
    const loaded = (async () => (fixture = await load()))();

    it('reads every row: calls, remembered results, inbox items, turns, steps and MCP servers', async () => {
      await loaded;
      const { store, close } = await open(fixture.store);
      try {
        const { finished, parked } = fixture.runs;
        assert.deepEqual((await store.getCall(finished, '0.f1'))?.answer, {
          status: 'ok',
          output: { id: 'ord_1', status: 'shipped' },
          labels: [],
        });
        assert.deepEqual((await store.getRemembered(`${finished}:0.r1`, NOW))?.answer, {
          status: 'ok',
          output: { currency: 'EUR', rate: 1.08 },
          labels: [],
        });
        const waiting = (await store.getCall(parked, '0.p2'))!;
        assert.equal(waiting.state, 'parked');
        assert.deepEqual(waiting.answer, {
          status: 'parked',
          kind: 'approval',
          inboxId: waiting.inboxId,
          reason: 'Needs approval (rule 1 (shop/refund ask)).',
          labels: [],
        });
        const inbox = await store.listInbox({ all: true });
        assert.deepEqual(
          inbox.map((item) => [item.kind, item.status, item.tool, item.by]),
          [
            ['approval', 'approved', 'shop/refund', 'dana'],
            ['approval', 'pending', 'shop/refund', undefined],
            ['in_doubt', 'pending', 'shop/charge', undefined],
          ],
        );
        assert.equal(
          inbox.some((item) => 'format' in item),
          false,
        );
        const [server] = await store.listMcpServers('default');
        assert.equal(server?.name, 'files');
        assert.deepEqual((server?.options as { transport: unknown }).transport, {
          stdio: { command: 'node', args: ['files-server.js'], cwd: '/srv' },
        });
      } finally {
        await close();
      }
    });

    it('answers the finished turns from their records', async () => {
      await loaded;
      const { wardrik, close } = await open(fixture.store);
      try {
        const agent = wardrik.startAgent({ id: 'support', model: resumingModel(), tools: ['shop/*'] });
        const finished = await agent.result(fixture.runs.finished);
        assert.deepEqual(
          {
            status: finished.status,
            text: finished.text,
            spentUsd: finished.spentUsd,
            steps: finished.steps,
            parked: finished.parked,
          },
          {
            status: 'done',
            text: '[scripted] Found: {"currency":"EUR","rate":1.08}',
            spentUsd: 0.01,
            steps: 2,
            parked: [],
          },
        );
        const approved = await agent.result(fixture.runs.approved);
        assert.equal(approved.text, '[scripted] Refund: {"refunded":"ord_2"}');
      } finally {
        await close();
      }
    });

    it('finishes the parked turn once its refund is approved, with the old turns as history', async () => {
      await loaded;
      const { wardrik, close } = await open(fixture.store);
      try {
        const model = resumingModel();
        const agent = wardrik.startAgent({ id: 'support', model, tools: ['shop/*'] });
        const item = (await wardrik.inbox.list()).find((entry) => entry.run === fixture.runs.parked)!;
        const next = agent.result(fixture.runs.parked);
        await wardrik.inbox.approve(item.id, { by: 'erin' });
        const done = await next;
        assert.equal(done.status, 'done');
        assert.equal(done.text, '[scripted] Then: {"refunded":"ord_1"}');
        assert.equal(model.calls.length, 1);
        // The two finished turns (user, assistant, tool, assistant each), then this one's journaled step and its answer.
        const prompt = model.calls[0]!.prompt;
        assert.deepEqual(
          prompt.map((message) => message.role),
          [
            'user',
            'assistant',
            'tool',
            'assistant',
            'user',
            'assistant',
            'tool',
            'assistant',
            'user',
            'assistant',
            'tool',
          ],
        );
        assert.deepEqual(prompt[0]!.content, [{ type: 'text', text: 'Where is ord_1?' }]);
        assert.deepEqual(prompt[9]!.content, [
          { type: 'text', text: '[scripted] Refunding.' },
          { type: 'tool-call', toolCallId: 'p2', toolName: 'shop__refund', input: { id: 'ord_1' } },
        ]);
      } finally {
        await close();
      }
    });

    it('settles the call a crash left in doubt as a person says, without running it, and finishes its turn', async () => {
      await loaded;
      const charged: string[] = [];
      const { wardrik, store, close } = await open(fixture.store, charged);
      try {
        const run = fixture.runs['in-doubt'];
        const agent = wardrik.startAgent({ id: 'support', model: resumingModel(), tools: ['shop/*'] });
        assert.equal((await store.getTurn(run))?.status, 'parked');
        const item = (await wardrik.inbox.list()).find((entry) => entry.run === run)!;
        assert.equal(item.kind, 'in_doubt');
        const next = agent.result(run);
        const answer = await wardrik.inbox.answer(
          item.id,
          { happened: true, result: { charged: 'ord_3', by: 'hand' } },
          { by: 'erin' },
        );
        assert.deepEqual(answer, { status: 'ok', output: { charged: 'ord_3', by: 'hand' }, labels: [] });
        const done = await next;
        assert.equal(done.status, 'done');
        assert.equal(done.text, '[scripted] Then: {"charged":"ord_3","by":"hand"}');
        assert.deepEqual(charged, []);
      } finally {
        await close();
      }
    });
  });
}
