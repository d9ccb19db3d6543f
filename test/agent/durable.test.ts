import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { container as root } from 'tsyringe';
import {
  defineTool,
  MemoryStore,
  Tokens,
  Wardrik,
  type Clock,
  type StepRecord,
  type WardrikEvent,
} from '../../src/index.js';
import { scriptedModel } from '../../src/testing/index.js';
import { agentHarness, shopTools } from './helpers.js';

describe('Durable turns', () => {
  describe('the journal', () => {
    it('holds each model response before any of its tool calls runs', async () => {
      const store = new MemoryStore();
      const seen: StepRecord[][] = [];
      const peek = defineTool({
        name: 'peek',
        description: 'Looks at the journal.',
        annotations: { readOnly: true },
        run: async (_args: object, ctx) => {
          seen.push(await store.listSteps(ctx.run));
          return 'ok';
        },
      });
      const h = await agentHarness([peek], { store });
      const turn = await h.wardrik
        .startAgent({
          id: 'a',
          model: scriptedModel([{ toolCalls: [{ name: 'shop__peek', id: 'p1' }] }, { text: 'Seen.' }]),
          tools: ['shop/*'],
        })
        .send('go');
      assert.equal(seen[0]!.length, 1);
      assert.deepEqual((seen[0]![0]!.data as { kind: string; calls: unknown }).calls, [
        { id: 'p1', name: 'shop__peek', input: '{}' },
      ]);
      const steps = await store.listSteps(turn.run);
      assert.deepEqual(
        steps.map((step) => (step.data as { kind: string }).kind),
        ['model', 'tools', 'model'],
      );
      assert.equal((await store.getTurn(turn.run))!.status, 'done');
      await h.close();
    });
  });

  describe('a parked turn', () => {
    it('stops when a call waits for a person, and says which', async () => {
      const h = await agentHarness(shopTools());
      const agent = h.wardrik.startAgent({
        id: 'a',
        model: scriptedModel([
          { text: 'Refunding.', toolCalls: [{ name: 'shop__refund', arguments: { id: 'ord_1' } }] },
        ]),
        tools: ['shop/*'],
      });
      const turn = await agent.send('Refund ord_1');
      assert.equal(turn.status, 'parked');
      assert.equal(turn.text, '[scripted] Refunding.');
      assert.equal(turn.parked.length, 1);
      const [item] = await h.wardrik.inbox.list();
      assert.deepEqual(turn.parked[0], {
        inboxId: item!.id,
        call: item!.call,
        tool: 'shop/refund',
        reason: item!.reason,
      });
      assert.deepEqual(
        h.types((e) => e.type.startsWith('run.')),
        ['run.started', 'run.parked'],
      );
      await h.close();
    });

    it('goes on by itself once a person approves: run.resumed, then run.finished, without asking the model again for the first step', async () => {
      const h = await agentHarness(shopTools());
      const model = scriptedModel([
        { toolCalls: [{ name: 'shop__refund', arguments: { id: 'ord_1' } }] },
        (call) => ({ text: `Refund result: ${call.lastToolResult}` }),
      ]);
      const agent = h.wardrik.startAgent({ id: 'a', model, tools: ['shop/*'] });
      const turn = await agent.send('Refund ord_1');
      await h.wardrik.inbox.approve(turn.parked[0]!.inboxId, { by: 'dana' });
      const done = await agent.result(turn.run);
      assert.equal(done.status, 'done');
      assert.equal(done.text, '[scripted] Refund result: {"refunded":"ord_1"}');
      assert.equal(model.calls.length, 2);
      assert.deepEqual(
        h.types((e) => e.type.startsWith('run.') || e.type === 'tool.answered'),
        ['run.started', 'run.parked', 'tool.answered', 'run.resumed', 'run.finished'],
      );
      await h.close();
    });

    it('tells the model when a person refuses, and goes on', async () => {
      const h = await agentHarness(shopTools());
      const model = scriptedModel([
        { toolCalls: [{ name: 'shop__refund', arguments: { id: 'ord_1' } }] },
        (call) => ({ text: `Told: ${call.lastToolResult}` }),
      ]);
      const agent = h.wardrik.startAgent({ id: 'a', model, tools: ['shop/*'] });
      const turn = await agent.send('Refund ord_1');
      await h.wardrik.inbox.deny(turn.parked[0]!.inboxId, { reason: 'Past 30 days', by: 'dana' });
      const done = await agent.result(turn.run);
      assert.equal(done.text, '[scripted] Told: A person (dana) refused this call: Past 30 days');
      await h.close();
    });

    it('runs the calls after a parked one only once the turn resumes', async () => {
      const log: string[] = [];
      const h = await agentHarness(shopTools(log));
      const model = scriptedModel([
        {
          toolCalls: [
            { name: 'shop__refund', arguments: { id: 'a' } },
            { name: 'shop__find_order', arguments: { id: 'b' } },
          ],
        },
        { text: 'Both done.' },
      ]);
      const agent = h.wardrik.startAgent({ id: 'a', model, tools: ['shop/*'] });
      const turn = await agent.send('go');
      assert.deepEqual(log, []);
      await h.wardrik.inbox.approve(turn.parked[0]!.inboxId);
      const done = await agent.result(turn.run);
      assert.equal(done.status, 'done');
      assert.deepEqual(log, ['refund:a:start', 'refund:a:end', 'find:b:start', 'find:b:end']);
      await h.close();
    });

    it('resolves result(run) with the next park when the resumed turn parks on a new call', async () => {
      const h = await agentHarness(shopTools());
      const model = scriptedModel([
        { toolCalls: [{ name: 'shop__refund', arguments: { id: 'a' } }] },
        { toolCalls: [{ name: 'shop__refund', arguments: { id: 'b' } }] },
        { text: 'Both refunded.' },
      ]);
      const agent = h.wardrik.startAgent({ id: 'a', model, tools: ['shop/*'] });
      let turn = await agent.send('Refund a and b');
      const answered: string[] = [];
      while (turn.status === 'parked') {
        const next = agent.result(turn.run);
        for (const call of turn.parked) {
          answered.push(call.tool);
          await h.wardrik.inbox.approve(call.inboxId);
        }
        turn = await next;
      }
      assert.equal(turn.status, 'done');
      assert.deepEqual(answered, ['shop/refund', 'shop/refund']);
      await h.close();
    });

    it('answers result(run) at once for a turn that has ended', async () => {
      const h = await agentHarness(shopTools());
      const agent = h.wardrik.startAgent({ id: 'a', model: scriptedModel([{ text: 'Hi.' }]), tools: [] });
      const turn = await agent.send('hi');
      assert.deepEqual(await agent.result(turn.run), turn);
      await assert.rejects(agent.result('nope'), /Agent "a" has no turn "nope"/);
      await h.close();
    });

    it('goes on through recover() when its call was answered where nobody watched', async () => {
      const store = new MemoryStore();
      const first = await Wardrik.create({ store, recoverMs: Infinity, tools: { shop: shopTools() } });
      const turn = await first
        .startAgent({
          id: 'a',
          model: scriptedModel([{ toolCalls: [{ name: 'shop__refund', arguments: { id: 'x' } }] }]),
          tools: ['shop/*'],
        })
        .send('go');
      await first.close();
      // A person answers from a node that runs no agents.
      const inboxNode = await Wardrik.create({ store, recoverMs: Infinity, tools: { shop: shopTools() } });
      await inboxNode.inbox.approve(turn.parked[0]!.inboxId);
      await inboxNode.close();
      const second = await Wardrik.create({ store, recoverMs: Infinity, tools: { shop: shopTools() } });
      const model = scriptedModel([{ text: 'Refunded.' }]);
      const agent = second.startAgent({ id: 'a', model, tools: ['shop/*'] });
      assert.deepEqual(await second.agents.recover(), [turn.run]);
      const done = await agent.result(turn.run);
      assert.equal(done.status, 'done');
      assert.equal(model.calls.length, 1);
      await second.close();
    });
  });

  describe('after a crash', () => {
    it('resumes on another node from the journal, without asking the model again for the step it answered', async () => {
      let now = 1_000_000;
      const clock: Clock = { now: () => now };
      // The store's clock too, where leases take their times: one process, one host.
      const store = new MemoryStore(clock);
      let started!: () => void;
      const running = new Promise<void>((resolve) => (started = resolve));
      const stuck = defineTool({
        name: 'lookup',
        description: 'A lookup that hangs on the first node.',
        annotations: { readOnly: true },
        run: (_args: object, ctx) => {
          if (ctx.attempt === 1 && hang) {
            started();
            return new Promise(() => undefined);
          }
          return { found: true };
        },
      });
      let hang = true;
      const nodeA = await Wardrik.create({
        store,
        recoverMs: Infinity,
        container: withClock(clock),
        runner: { node: 'A', leaseMs: 30_000 },
        tools: { shop: [stuck] },
      });
      const modelA = scriptedModel([{ text: 'Looking.', toolCalls: [{ name: 'shop__lookup', id: 'l1' }] }], {
        name: 'node-a',
      });
      const agentA = nodeA.startAgent({ id: 'a', model: modelA, tools: ['shop/*'] });
      const sending = agentA.send('Find it').catch((error: Error) => error);
      await running;
      // Node A is gone (it never finishes); its lease runs out.
      hang = false;
      now += 60_000;
      const events: WardrikEvent[] = [];
      const nodeB = await Wardrik.create({
        store,
        recoverMs: Infinity,
        container: withClock(clock),
        runner: { node: 'B' },
        tools: { shop: [stuck] },
      });
      nodeB.events$.subscribe((event) => events.push(event));
      const modelB = scriptedModel([(call) => ({ text: `Found: ${call.lastToolResult}` })], { name: 'node-b' });
      const agentB = nodeB.startAgent({ id: 'a', model: modelB, tools: ['shop/*'] });
      const [run] = await store.listTurns({ status: 'running' }).then((turns) => turns.map((t) => t.run));
      await nodeB.recover();
      const done = await agentB.result(run!);
      assert.equal(done.status, 'done');
      assert.equal(done.text, '[scripted] Found: {"found":true}');
      assert.equal(modelA.calls.length, 1);
      assert.equal(modelB.calls.length, 1, 'node B asked the model only for the step node A had not journaled');
      assert.deepEqual(
        modelB.calls[0]!.prompt.map((m) => m.role),
        ['user', 'assistant', 'tool'],
      );
      assert.deepEqual(
        events.filter((e) => e.type.startsWith('run.')).map((e) => [e.type, 'reason' in e ? e.reason : undefined]),
        [
          ['run.resumed', 'recovered'],
          ['run.finished', undefined],
        ],
      );
      await nodeB.close();
      await nodeA.close();
      await sending;
    });

    it('leaves a turn alone while the node driving it holds its lease', async () => {
      const store = new MemoryStore();
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const slow = defineTool({
        name: 'slow',
        description: 'Waits.',
        annotations: { readOnly: true },
        run: () => gate.then(() => 'ok'),
      });
      const nodeA = await Wardrik.create({
        store,
        recoverMs: Infinity,
        runner: { node: 'A' },
        tools: { shop: [slow] },
      });
      const agentA = nodeA.startAgent({
        id: 'a',
        model: scriptedModel([{ toolCalls: [{ name: 'shop__slow' }] }, { text: 'Done.' }]),
        tools: ['shop/*'],
      });
      const sending = agentA.send('go');
      await new Promise((resolve) => setImmediate(resolve));
      const nodeB = await Wardrik.create({
        store,
        recoverMs: Infinity,
        runner: { node: 'B' },
        tools: { shop: [slow] },
      });
      nodeB.startAgent({ id: 'a', model: scriptedModel([]), tools: ['shop/*'] });
      assert.deepEqual(await nodeB.agents.recover(), []);
      release();
      assert.equal((await sending).status, 'done');
      await nodeB.close();
      await nodeA.close();
    });
  });
});

/** A container whose Clock is `clock`, for Wardrik.create({ container }). */
function withClock(clock: Clock) {
  const container = root.createChildContainer();
  container.register(Tokens.Clock, { useValue: clock });
  return container;
}
