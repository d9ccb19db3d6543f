import 'reflect-metadata';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { container as root } from 'tsyringe';
import { defineTool, SqliteStore, Tokens, Wardrik } from '../../src/index.js';
import type { LanguageModelV4CallOptions } from '@ai-sdk/provider';
import { ScriptedModel, scriptedModel } from '../../src/testing/index.js';
import { killAtCrashPoint } from '../crash/kill-at-crash-point.js';
import { lapseLeases } from '../crash/scratch-stores.js';

/**
 * An agent's call answers are held and committed with the turn's next write. A node killed
 * with SIGKILL while the model reads the answers (its next call) shows what that costs: an answer not
 * safe to repeat was durable before the model was asked; a read-only call's answer may not be, and the
 * call then runs again with the same idempotency key.
 */
const NODE_SCRIPT = fileURLToPath(new URL('./held-answers-node.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'wardrik-held-answers-'));
after(() => rmSync(dir, { recursive: true, force: true }));

async function killedThenRecovered(tool: 'lookup' | 'note') {
  const store = `sqlite:${join(dir, `${tool}.db`)}`;
  const log = join(dir, `${tool}.log`);
  writeFileSync(log, '');
  await killAtCrashPoint(NODE_SCRIPT, { WARDRIK_STORE: store, WARDRIK_TOOL: tool, WARDRIK_RAN_LOG: log });
  const ranBefore = readFileSync(log, 'utf8').split('\n').filter(Boolean);
  // The dead node's lease has run out (on the store's clock); the new node's clock is an hour on too.
  await lapseLeases(store);
  const container = root.createChildContainer();
  container.register(Tokens.Clock, { useValue: { now: () => Date.now() + 3_600_000 } });
  const keys: string[] = [];
  const tools = [
    defineTool({
      name: 'lookup',
      description: 'Looks an order up.',
      annotations: { readOnly: true },
      run: (_a, ctx) => (keys.push(`survivor:lookup:${ctx.idempotencyKey}`), { found: 'ord_1' }),
    }),
    defineTool({ name: 'note', description: 'Writes a note.', run: () => (keys.push('survivor:note'), 'noted') }),
  ];
  // Wardrik.create recovers what the crash left in flight.
  const wardrik = await Wardrik.create({
    store,
    container,
    recoverMs: Infinity,
    runner: { node: 'survivor' },
    tools: { shop: tools },
    policy: { rules: [{ match: 'shop/*', action: 'allow' }] },
  });
  try {
    const model = scriptedModel([(call) => ({ text: `Result: ${call.lastToolResult}` })], { name: 'survivor' });
    const agent = wardrik.startAgent({ id: 'support', model, tools: ['shop/*'] });
    const [run] = await wardrik.agents.recover();
    assert.ok(run, 'the running turn was taken up');
    const turn = await agent.result(run);
    const inbox = await wardrik.inbox.list();
    return { turn, model, ranBefore, keys, inbox, run };
  } finally {
    await wardrik.close();
  }
}

describe('An agent turn killed while the model reads its answers (SQLite)', () => {
  it('had the answer of a call not safe to repeat durable: nothing in doubt, nothing run again', async () => {
    const { turn, model, ranBefore, keys, inbox } = await killedThenRecovered('note');
    assert.deepEqual(ranBefore, ['doomed:note']);
    assert.deepEqual(keys, [], 'the note did not run again');
    assert.deepEqual(inbox, [], 'nothing parked in doubt');
    assert.equal(turn.status, 'done');
    assert.equal(turn.text, '[scripted] Result: noted');
    assert.deepEqual(
      model.calls[0]!.prompt.map((message) => message.role),
      ['user', 'assistant', 'tool'],
    );
  });

  it('runs a read-only call again, with its idempotency key, when its answer had not been committed yet', async () => {
    const { turn, model, ranBefore, keys, run } = await killedThenRecovered('lookup');
    assert.deepEqual(ranBefore, ['doomed:lookup']);
    assert.deepEqual(keys, [`survivor:lookup:${run}:0.c1`], 'repeated once, with the same key');
    assert.equal(turn.status, 'done');
    assert.equal(turn.text, '[scripted] Result: {"found":"ord_1"}');
    assert.equal(model.calls.length, 1, 'the model step that asked for the call was not asked again');
    assert.deepEqual(
      model.calls[0]!.prompt.map((message) => message.role),
      ['user', 'assistant', 'tool'],
    );
  });
});

describe('A read-only call whose answer is held for the next commit', () => {
  it('counts as running on its node: a recovery pass meanwhile leaves it alone', async () => {
    let ran = 0;
    const peek = defineTool({
      name: 'peek',
      description: 'Reads.',
      annotations: { readOnly: true },
      run: () => (ran++, 'seen'),
    });
    let asked!: () => void;
    const askedTwice = new Promise<void>((resolve) => (asked = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    /** Its second call waits until the test releases it: the first call's answer is held meanwhile. */
    class GatedModel extends ScriptedModel {
      override async doGenerate(options: LanguageModelV4CallOptions): ReturnType<ScriptedModel['doGenerate']> {
        if (this.calls.length === 1) {
          asked();
          await released;
        }
        return super.doGenerate(options);
      }
    }
    const wardrik = await Wardrik.create({
      store: `sqlite:${join(dir, 'held.db')}`,
      recoverMs: Infinity,
      tools: { shop: [peek] },
    });
    try {
      const agent = wardrik.startAgent({
        id: 'a',
        model: new GatedModel([{ toolCalls: [{ name: 'shop__peek', id: 'p1' }] }, { text: 'Seen.' }]),
        tools: ['shop/*'],
      });
      const sending = agent.send('Look.');
      await askedTwice;
      // Its answer is not in the journal yet: the call is `started` there.
      const other = new SqliteStore({ path: join(dir, 'held.db') });
      assert.deepEqual(
        (await other.listCalls({ state: 'started' })).map((record) => record.call),
        ['0.p1'],
      );
      await other.close();
      const report = await wardrik.recover();
      assert.equal(report.rerun, 0, 'the held call was not taken for a crashed one');
      release();
      const turn = await sending;
      assert.equal(turn.status, 'done', turn.error);
      assert.equal(ran, 1);
    } finally {
      await wardrik.close();
    }
  });
});
