import 'reflect-metadata';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { container as root } from 'tsyringe';
import { defineTool, openStore, Tokens, Wardrik } from '../../src/index.js';
import { scriptedModel } from '../../src/testing/index.js';
import { lapseLeases, scratchStores } from '../crash/scratch-stores.js';
import { eventually } from '../eventually.js';

/**
 * A turn taken up from a node that stopped answering, before any recovery pass took up the call it left
 * `started` (the pass ran while that node's lease still held, the turn's recovery just after it lapsed):
 * the turn sends the call again, and this node, which holds the run now, takes the call over as recovery
 * would. It must not hear that the call is "already running" and go on without it, leaving a call in
 * doubt that no turn waits on.
 */
const { dir } = scratchStores('orphaned-call');

describe('A turn taken up while the call its dead node left is still started', () => {
  it('parks on that call in doubt (not safe to repeat), rather than hearing it is already running', async () => {
    const store = `sqlite:${join(dir, 'orphaned.db')}`;
    let sent = 0;
    let hang!: () => void;
    const hung = new Promise<void>((resolve) => (hang = resolve));
    // On the first node the email hangs, as on a node that died while it ran.
    const email = (wait: boolean) =>
      defineTool({
        name: 'email',
        description: 'Sends an email.',
        run: async () => (sent++, wait ? hung.then(() => 'sent') : 'sent'),
      });
    const policy = { rules: [{ match: 'mail/*', action: 'allow' as const }] };
    const first = await Wardrik.create({
      store,
      recoverMs: Infinity,
      runner: { node: 'first' },
      tools: { mail: [email(true)] },
      policy,
    });
    // The second node's clock is an hour on.
    const container = root.createChildContainer();
    container.register(Tokens.Clock, { useValue: { now: () => Date.now() + 3_600_000 } });
    const second = await Wardrik.create({
      store,
      container,
      recoverMs: Infinity,
      runner: { node: 'second' },
      tools: { mail: [email(false)] },
      policy,
    });
    const inspect = await openStore(store);
    try {
      const model1 = scriptedModel([{ toolCalls: [{ name: 'mail__email', id: 'e1' }] }]);
      void first
        .startAgent({ id: 'a', model: model1, tools: ['mail/*'] })
        .send('Send it')
        .catch(() => undefined);
      await eventually('the email to start on the first node', () => sent > 0);
      assert.equal(sent, 1, 'the email is running on the first node');
      // The first node stops answering: its lease runs out on the store's clock.
      await lapseLeases(store);

      // Asked at all, it says what it heard of the email (a real model told it is "already running" may send it again).
      const model = scriptedModel([(call) => ({ text: `Email: ${call.lastToolResult}` })], { name: 'second' });
      const agent = second.startAgent({ id: 'a', model, tools: ['mail/*'] });
      // The turn's recovery alone: no recovery pass of the runner has taken the started call up.
      const [run] = await second.agents.recover();
      assert.ok(run, 'the running turn was taken up');
      const turn = await agent.result(run);

      assert.equal(sent, 1, 'the email was not sent again');
      assert.equal(turn.status, 'parked', `the turn ended ${turn.status}: ${turn.text}`);
      assert.equal(model.calls.length, 0, 'the model heard nothing about the email');
      const [item] = await second.inbox.list();
      assert.equal(item?.kind, 'in_doubt');
      assert.deepEqual(
        turn.parked.map((call) => call.inboxId),
        [item.id],
      );
      assert.equal((await inspect.getCall(run, item.call))?.state, 'parked');

      // A person says it happened: the turn goes on with that answer.
      await second.inbox.answer(item.id, { happened: true, result: 'sent' });
      const done = await agent.result(run);
      assert.equal(done.status, 'done');
      assert.equal(done.text, '[scripted] Email: sent');
      assert.equal(sent, 1, 'the email was never sent again');
    } finally {
      hang();
      await second.close();
      await first.close();
      await inspect.close();
    }
  });
});
