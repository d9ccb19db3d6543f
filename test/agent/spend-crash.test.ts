import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { container as root } from 'tsyringe';
import { defineTool, Tokens, Wardrik } from '../../src/index.js';
import { scriptedModel } from '../../src/testing/index.js';
import { killAtCrashPoint } from '../crash/kill-at-crash-point.js';
import { lapseLeases, scratchStores } from '../crash/scratch-stores.js';

/**
 * A priced model step's spend is committed with the step (and its calls' `started`), not on
 * its own. A node killed with SIGKILL after that commit must leave the spend counted exactly once: not
 * lost, and not added again when a new node takes the turn up without asking the model again.
 */
const NODE_SCRIPT = fileURLToPath(new URL('./spend-crash-node.js', import.meta.url));
const { stores: STORES } = scratchStores('spend-crash');

/** $0.10 a step: 1 000 input tokens at $100 per million. */
const STEP_MICRO_USD = 100_000;

async function killedThenRecovered(store: string, at: 'tool' | 'model') {
  await killAtCrashPoint(NODE_SCRIPT, { WARDRIK_STORE: store, WARDRIK_CRASH_AT: at });
  // The dead node's lease has run out (on the store's clock); the new node's clock is an hour on too.
  await lapseLeases(store);
  const container = root.createChildContainer();
  container.register(Tokens.Clock, { useValue: { now: () => Date.now() + 3_600_000 } });
  const lookup = defineTool({
    name: 'lookup',
    description: 'Looks an order up.',
    annotations: { readOnly: true },
    run: () => ({ found: 'ord_1' }),
  });
  const wardrik = await Wardrik.create({
    store,
    container,
    recoverMs: Infinity,
    runner: { node: 'survivor' },
    tools: { shop: [lookup] },
  });
  try {
    const spent = () => wardrik.container.resolve(Tokens.Store).getSpend('support');
    const afterCrash = await spent();
    const model = scriptedModel([(call) => ({ text: `Found: ${call.lastToolResult}` })], {
      name: 'survivor',
      usage: { inputTokens: 1000 },
    });
    const agent = wardrik.startAgent({
      id: 'support',
      model,
      tools: ['shop/*'],
      price: { inputPerMTok: 100, outputPerMTok: 0 },
    });
    const [run] = await wardrik.agents.recover();
    assert.ok(run, 'the running turn was taken up');
    const turn = await agent.result(run);
    assert.equal(turn.status, 'done', turn.error);
    return { afterCrash, total: await spent(), model };
  } finally {
    await wardrik.close();
  }
}

for (const [name, store] of STORES) {
  describe(`A priced agent turn killed with SIGKILL after its model step committed (${name})`, () => {
    it('while the step’s call ran: its spend was kept once, and is not added again when the turn resumes', async () => {
      const { afterCrash, total, model } = await killedThenRecovered(store(), 'tool');
      assert.equal(afterCrash, STEP_MICRO_USD, 'the first step’s spend committed with the step');
      assert.equal(model.calls.length, 1, 'the first step was not asked for again');
      assert.equal(total, 2 * STEP_MICRO_USD, 'the first step once, the survivor’s final step once');
    });

    it('while the model was asked again: the answered step’s spend was kept once', async () => {
      const { afterCrash, total, model } = await killedThenRecovered(store(), 'model');
      assert.equal(afterCrash, STEP_MICRO_USD);
      assert.equal(model.calls.length, 1);
      assert.equal(total, 2 * STEP_MICRO_USD);
    });
  });
}
