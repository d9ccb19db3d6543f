import 'reflect-metadata';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import pg from 'pg';
import { defineTool, Wardrik, type ToolDefinition } from '../../src/index.js';
import type { Store } from '../../src/store/store.js';
import { scriptedModel } from '../../src/testing/index.js';
import { POSTGRES_URL, scratchStores } from '../crash/scratch-stores.js';
import { countPostgres, walCommits, walFrames } from '../store/commit-counters.js';

/**
 * What durability costs an agent's tool call. What must be durable before a tool
 * runs (the model's step and the call's `started`) is one transaction; what must be durable before the
 * model sees the answer (the call's answer and the step's answers) one more; a repeatable call's answer
 * rides with the next step's commit. Counted in the store itself: SQLite's WAL commit frames, and the
 * statements PostgreSQL receives.
 */
const { dir, schema: newSchema } = scratchStores('turn-commits');

const CALLS = 10;
/**
 * The turn's own commits: at its start the run's lease and the turn record, together; at its end the
 * final model step, the last answers and the turn's outcome, together. The lease is given up later,
 * with the other runs gone idle by then.
 */
const START_AND_END = 2;

const ran: string[] = [];
const tools: ToolDefinition[] = [
  // Neither read-only nor idempotent: its answer must be durable before the model sees it.
  defineTool({
    name: 'note',
    description: 'Writes a note.',
    input: { type: 'object', properties: { n: { type: 'number' } }, additionalProperties: false },
    run: ({ n }: { n: number }) => (ran.push(`note:${n}`), `noted ${n}`),
  }),
  defineTool({
    name: 'web',
    description: 'Reads a page outside.',
    input: { type: 'object', properties: { n: { type: 'number' } }, additionalProperties: false },
    annotations: { readOnly: true, labels: ['outside'] },
    run: ({ n }: { n: number }) => `page ${n}`,
  }),
  defineTool({
    name: 'peek',
    description: 'Reads.',
    input: { type: 'object', properties: { n: { type: 'number' } }, additionalProperties: false },
    annotations: { readOnly: true },
    run: ({ n }: { n: number }) => `seen ${n}`,
  }),
];

/** A turn of `CALLS` model steps with one call of `tool` each, then a final answer; each step reads 1 000 tokens. */
function tenCalls(tool: string) {
  return scriptedModel(
    [
      ...Array.from({ length: CALLS }, (_, n) => ({ toolCalls: [{ name: `t__${tool}`, arguments: { n } }] })),
      { text: 'Done.' },
    ],
    { usage: { inputTokens: 1000 } },
  );
}

/** $0.01 a model step (1 000 input tokens at $10 per million): a model that costs money. */
const PRICE = { inputPerMTok: 10, outputPerMTok: 0 };

/** Runs the turn (priced or free) and returns what `counted` counted meanwhile (read before and after `send`). */
async function turnOn(store: string, tool: string, counted: () => number, priced = false): Promise<number> {
  const wardrik = await Wardrik.create({
    store,
    recoverMs: Infinity,
    tools: { t: tools },
    policy: { rules: [{ match: 't/*', action: 'allow' }] },
  });
  try {
    const id = `a-${tool}${priced ? '-priced' : ''}`;
    const agent = wardrik.startAgent({
      id,
      model: tenCalls(tool),
      tools: ['t/*'],
      ...(priced ? { price: PRICE } : {}),
    });
    const before = counted();
    const turn = await agent.send('Go.');
    const commits = counted() - before;
    assert.equal(turn.status, 'done', turn.error);
    assert.equal(turn.steps, CALLS + 1);
    if (priced) {
      // Every step's cost, exactly once, in whole micro-dollars.
      assert.equal(Math.round(turn.spentUsd * 1e6), (CALLS + 1) * 10_000);
      assert.equal(await spendOf(wardrik, id), (CALLS + 1) * 10_000);
    }
    return commits;
  } finally {
    await wardrik.close();
  }
}

/** The agent's spend as the store keeps it, in micro-dollars. */
function spendOf(wardrik: Wardrik, agent: string): Promise<number> {
  return wardrik.container.resolve<Store>(Symbol.for('wardrik:store')).getSpend(agent);
}

describe('An agent turn of ten tool calls', () => {
  it('commits twice per call on SQLite, plus the turn’s start and end', async () => {
    const path = join(dir, 'unsafe.db');
    const commits = await turnOn(`sqlite:${path}`, 'note', () => walCommits(path));
    assert.deepEqual(ran.splice(0).length, CALLS);
    assert.ok(commits <= 2 * CALLS + START_AND_END, `${commits} commits for ${CALLS} calls`);
  });

  it('commits twice per call on SQLite with a model that costs money: each step’s spend rides with the step', async () => {
    const path = join(dir, 'priced.db');
    const commits = await turnOn(`sqlite:${path}`, 'note', () => walCommits(path), true);
    assert.deepEqual(ran.splice(0).length, CALLS);
    assert.ok(commits <= 2 * CALLS + START_AND_END, `${commits} commits for ${CALLS} calls`);
  });

  it('commits once per read-only call on SQLite: its answer rides with the next step', async () => {
    const path = join(dir, 'safe.db');
    const commits = await turnOn(`sqlite:${path}`, 'peek', () => walCommits(path));
    assert.ok(commits <= CALLS + START_AND_END, `${commits} commits for ${CALLS} calls`);
  });

  it('commits once per read-only call on SQLite when the answers carry a label the run did not have: the labels ride with the answer', async () => {
    const path = join(dir, 'labelled.db');
    const plain = await turnOn(`sqlite:${join(dir, 'unlabelled.db')}`, 'peek', () =>
      walCommits(join(dir, 'unlabelled.db')),
    );
    const commits = await turnOn(`sqlite:${path}`, 'web', () => walCommits(path));
    assert.equal(commits, plain, `${commits} commits with labels, ${plain} without`);
  });

  it('appends under 7 log pages per read-only call on SQLite: a step costs about a page, not three', async () => {
    const path = join(dir, 'pages.db');
    const wardrik = await Wardrik.create({ store: `sqlite:${path}`, recoverMs: Infinity, tools: { t: tools } });
    try {
      // Turns of one agent, each in a run of its own; after two, with a store that has some history, counted.
      const COUNTED = 6;
      let pages = 0;
      for (let turn = 0; turn < 2 + COUNTED; turn++) {
        const agent = wardrik.startAgent({
          id: `pages-${turn}`,
          model: tenCalls('peek'),
          tools: ['t/*'],
          historyTurns: 0,
        });
        const before = walFrames(path).length;
        assert.equal((await agent.send('Go.')).status, 'done');
        if (turn >= 2) pages += walFrames(path).length - before;
      }
      // Per call: the call's row, its key, the index of waiting calls, the step, now and then a new page,
      // and the turn’s start and end spread over its calls: 6.4. Steps keyed by run and index (schema 8): 7.9.
      const perCall = pages / (COUNTED * CALLS);
      assert.ok(perCall < 7, `${perCall.toFixed(2)} log pages per call`);
    } finally {
      await wardrik.close();
    }
  });

  it('starts read-only calls made together in one commit on SQLite, with the model step that asked for them', async () => {
    const path = join(dir, 'together.db');
    const wardrik = await Wardrik.create({ store: `sqlite:${path}`, recoverMs: Infinity, tools: { t: tools } });
    try {
      const peeks = Array.from({ length: 5 }, (_, n) => ({ name: 't__peek', arguments: { n } }));
      const agent = wardrik.startAgent({
        id: 'together',
        model: scriptedModel([{ toolCalls: peeks }, { text: 'Seen.' }]),
        tools: ['t/*'],
      });
      const before = walCommits(path);
      const turn = await agent.send('Look.');
      assert.equal(turn.status, 'done', turn.error);
      // The turn's start and end, and one commit for the step and its five calls' `started`; their
      // answers ride with the final step.
      assert.equal(walCommits(path) - before, START_AND_END + 1);
    } finally {
      await wardrik.close();
    }
  });

  for (const [tool, priced] of [
    ['note', false],
    ['peek', false],
    ['note', true],
  ] as const) {
    it(`on PostgreSQL makes each write one round trip, twice per call at most (${tool}${priced ? ', a model that costs money' : ''}), and reads no labels per call`, async () => {
      const schema = newSchema();
      // The schema's tables exist before counting starts.
      await (await Wardrik.create({ store: `${POSTGRES_URL}?schema=${schema}`, recoverMs: Infinity })).close();
      const counter = countPostgres(schema);
      let statements: string[] = [];
      const original = pg.Client.prototype.query;
      pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
        const first = args[0] as string | { text?: string };
        statements.push(typeof first === 'string' ? first : (first?.text ?? ''));
        return (original as (...a: unknown[]) => unknown).apply(this, args);
      } as typeof original;
      try {
        // Only what the turn sends: the statements list starts again when the count is first read.
        let reads = 0;
        let turnStatements: string[] = [];
        const commits = await turnOn(
          `${POSTGRES_URL}?schema=${schema}`,
          tool,
          () => {
            if (reads++ === 0) statements = [];
            else turnStatements = [...statements];
            return counter.counts.transactions;
          },
          priced,
        );
        ran.splice(0);
        assert.ok(commits <= 2 * CALLS + START_AND_END, `${commits} write transactions for ${CALLS} calls`);
        assert.equal(
          statements.filter((text) => text === 'BEGIN').length,
          0,
          `every write is one statement, one round trip: ${statements.join(' | ')}`,
        );
        // A turn's commits, one after the other: each is one call of the journal function, the one
        // encoding of its writes (migration 10 dropped wardrik_journal_row, the function of single values).
        // (The lease given up when Wardrik closes, after the turn, is not one of them.)
        const journalCommits = turnStatements.filter((text) => /\.wardrik_journal\(/.test(text)).length;
        assert.equal(journalCommits, commits, `${journalCommits} of ${commits} commits through wardrik_journal`);
        assert.equal(
          turnStatements.filter((text) => /\.wardrik_journal_row\(/.test(text)).length,
          0,
          'no commit through wardrik_journal_row',
        );
        const labelReads = statements.filter((text) => /SELECT label FROM/.test(text)).length;
        assert.equal(labelReads, 0, "no read of the run's labels");
      } finally {
        pg.Client.prototype.query = original;
        counter.restore();
      }
    });
  }
});
