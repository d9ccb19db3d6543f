import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defineTool, Wardrik, type ToolCaller } from '../../src/index.js';
import { scriptedModel } from '../../src/testing/index.js';

/** A Wardrik whose one tool records the `ctx.caller` of every call; `t/ask` always asks a person. */
async function recording() {
  const seen: ToolCaller[] = [];
  const record = (name: string) =>
    defineTool({
      name,
      description: 'Record who called.',
      annotations: { readOnly: true },
      input: { type: 'object', properties: { caller: { type: 'string' } } },
      run: (_args: unknown, ctx) => {
        seen.push(ctx.caller);
        return 'recorded';
      },
    });
  const wardrik = await Wardrik.create({
    store: 'memory:',
    recoverMs: Infinity,
    tools: { t: [record('look'), record('ask')] },
    policy: { rules: [{ match: 't/ask', action: 'ask' }] },
  });
  return { wardrik, seen };
}

describe('ctx.caller', () => {
  it("is the app's, with the principal the app passed, for runner.run; the model's arguments cannot set it", async () => {
    const { wardrik, seen } = await recording();
    try {
      await Promise.all([
        wardrik.runner.run({
          agent: 'a',
          run: 'run-1',
          call: { id: 'c1', name: 't__look', arguments: { caller: 'the CEO' } },
          caller: { door: 'app', principal: 'dana' },
        }),
        wardrik.runner.run({ agent: 'a', run: 'run-2', call: { id: 'c2', name: 't__look' } }),
      ]);
      assert.deepEqual(seen.map((caller) => caller.principal ?? '-').sort(), ['-', 'dana']);
      assert.ok(seen.every((caller) => caller.door === 'app'));
    } finally {
      await wardrik.close();
    }
  });

  it("says an agent's call came through the agent door", async () => {
    const { wardrik, seen } = await recording();
    try {
      const model = scriptedModel([{ toolCalls: [{ name: 't__look', arguments: {} }] }, { text: 'Done.' }]);
      const turn = await wardrik.startAgent({ id: 'support', model, tools: ['t/*'] }).send('Look.');
      assert.equal(turn.status, 'done');
      assert.deepEqual(seen, [{ door: 'agent' }]);
    } finally {
      await wardrik.close();
    }
  });

  it('says a call run after a person approved it was resumed: its request is gone', async () => {
    const { wardrik, seen } = await recording();
    try {
      const parked = await wardrik.runner.run({
        agent: 'a',
        run: 'run-3',
        call: { id: 'c3', name: 't__ask' },
        caller: { door: 'app', principal: 'dana' },
      });
      assert.equal(parked.status, 'parked');
      await wardrik.inbox.approve(parked.status === 'parked' ? parked.inboxId! : '', { by: 'lee' });
      assert.deepEqual(seen, [{ door: 'resumed' }]);
    } finally {
      await wardrik.close();
    }
  });
});
