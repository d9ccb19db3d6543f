import 'reflect-metadata';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { container as root } from 'tsyringe';
import { defineTool, EventBus, Tokens, Wardrik } from '../../src/index.js';
import type { EventInput } from '../../src/telemetry/events.js';
import { scriptedModel } from '../../src/testing/index.js';
import { eventually } from '../eventually.js';

/** A bus a user put in place of Wardrik's: it drops every event, so nobody ever hears one. */
class DroppingBus extends EventBus {
  override get listening(): boolean {
    return false;
  }

  override emit(_input: EventInput): void {}
}

/** A paid tool that changes things, so each call waits for a person's approval. */
const charge = defineTool({
  name: 'charge',
  description: 'Charges a card.',
  input: {
    type: 'object',
    properties: { cents: { type: 'integer' } },
    required: ['cents'],
    additionalProperties: false,
  },
  run: ({ cents }: { cents: number }, ctx) => {
    ctx.cost(0.5);
    return { charged: cents };
  },
});

/** A Wardrik on `store` whose container holds a bus that drops everything. */
async function withDroppingBus(store: string): Promise<Wardrik> {
  const container = root.createChildContainer();
  container.register(Tokens.Events, { useValue: new DroppingBus({ now: () => Date.now() }) });
  return Wardrik.create({ store, container, recoverMs: Infinity, tools: { pay: [charge] } });
}

const price = { inputPerMTok: 1_000_000, outputPerMTok: 0 };
const usage = { inputTokens: 1 };
const dollars = (usd: number): number => Math.round(usd * 1e6) / 1e6;

describe('Agents with Tokens.Events replaced by a bus that drops everything', () => {
  it("resume a parked turn by themselves once a person approves it here, and count the call's cost", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wardrik-dropped-'));
    const wardrik = await withDroppingBus(`sqlite:${join(dir, 'w.db')}`);
    try {
      const model = scriptedModel(
        [{ toolCalls: [{ name: 'pay__charge', arguments: { cents: 700 } }] }, { text: 'Charged.' }],
        { usage },
      );
      const agent = wardrik.startAgent({ id: 'till', model, price, tools: ['pay/*'] });
      const parked = await agent.send('Charge 7 dollars');
      assert.equal(parked.status, 'parked');
      assert.equal(parked.spentUsd, 1, 'one model step of one input token at $1 a token');
      const next = agent.result(parked.run);
      await wardrik.inbox.approve(parked.parked[0]!.inboxId);
      const done = await next;
      assert.equal(done.status, 'done');
      assert.equal(done.text, '[scripted] Charged.');
      assert.equal(dollars(done.spentUsd), 2.5, 'two model steps ($1 each) and the approved call ($0.50)');
      assert.equal(model.calls.length, 2);
    } finally {
      await wardrik.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('finish a turn approved from another Wardrik on the same SQLite file, with its spend right', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wardrik-dropped-'));
    const store = `sqlite:${join(dir, 'w.db')}`;
    const first = await withDroppingBus(store);
    const second = await withDroppingBus(store);
    try {
      const model = scriptedModel(
        [{ toolCalls: [{ name: 'pay__charge', arguments: { cents: 300 } }] }, { text: 'Charged.' }],
        { usage },
      );
      const agent = first.startAgent({ id: 'till', model, price, tools: ['pay/*'] });
      const parked = await agent.send('Charge 3 dollars');
      assert.equal(parked.status, 'parked');
      // The other Wardrik offers the tool, so the call runs there, and costs there. Right after the turn
      // parked, the first may still hold the run's lease (it keeps an idle run a moment): the approval is
      // then kept, and the other's recovery runs the call once the run is free.
      const answer = await second.inbox.approve(parked.parked[0]!.inboxId, { by: 'dana' });
      if (answer.status === 'parked') {
        await eventually(
          'the other Wardrik to run the approved call',
          async () => (await second.runner.recover()).approved > 0,
        );
      }
      assert.equal((await second.runner.recover()).approved, 0, 'the call ran once');
      // Closing gives up the run's lease the other Wardrik took to run the call (an idle one is kept a moment).
      await second.close();
      assert.deepEqual(await first.agents.recover(), [parked.run], 'the first Wardrik takes the answered turn up');
      const done = await agent.result(parked.run);
      assert.equal(done.status, 'done');
      assert.equal(
        dollars(done.spentUsd),
        2.5,
        'two model steps ($1 each) and the call approved and run on the other Wardrik ($0.50)',
      );
      assert.equal(model.calls.length, 2, 'the first step is not asked of the model again');
    } finally {
      await second.close();
      await first.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
