import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigurationError, defineTool, MemoryStore, Wardrik } from '../../src/index.js';
import { scriptedModel } from '../../src/testing/index.js';
import { agentHarness, shopTools } from './helpers.js';

describe('Agent', () => {
  describe('when the model calls a tool and then answers', () => {
    it('runs the call, gives the answer back to the model and ends done with its text', async () => {
      const h = await agentHarness(shopTools());
      const model = scriptedModel([
        { toolCalls: [{ name: 'shop__find_order', arguments: { id: 'ord_1' } }] },
        { text: 'Order ord_1 has shipped.' },
      ]);
      const agent = h.wardrik.startAgent({ id: 'support', model, tools: ['shop/*'], instructions: 'Be brief.' });
      const turn = await agent.send('Where is ord_1?');
      assert.equal(turn.status, 'done');
      assert.equal(turn.text, '[scripted] Order ord_1 has shipped.');
      assert.equal(turn.steps, 2);
      assert.deepEqual(turn.parked, []);
      const second = model.calls[1]!.prompt;
      assert.deepEqual(second[0], { role: 'system', content: 'Be brief.' });
      const toolMessage = second[second.length - 1]!;
      assert.equal(toolMessage.role, 'tool');
      assert.deepEqual((toolMessage.content[0] as { output: unknown }).output, {
        type: 'text',
        value: '{"id":"ord_1","status":"shipped"}',
      });
      await h.close();
    });

    it('emits run.started, a cost and model.called per model step, the tool events and run.finished, all under the turn run', async () => {
      const h = await agentHarness(shopTools());
      const agent = h.wardrik.startAgent({
        id: 'support',
        model: scriptedModel([
          { toolCalls: [{ name: 'shop__find_order', arguments: { id: 'ord_1' } }] },
          { text: 'Shipped.' },
        ]),
        tools: ['shop/*'],
      });
      const turn = await agent.send('Where is ord_1?');
      assert.deepEqual(
        h.types((e) => 'run' in e && e.run === turn.run),
        [
          'run.started',
          'cost',
          'model.called',
          'tool.called',
          'tool.decided',
          'label.added',
          'tool.succeeded',
          'cost',
          'model.called',
          'run.finished',
        ],
      );
      await h.close();
    });
  });

  describe('what the model sees', () => {
    it('gets toolset__tool names with their JSON Schemas, only for the agent’s patterns, and the reader', async () => {
      const h = await agentHarness(shopTools());
      const model = scriptedModel([{ text: 'Hi.' }]);
      await h.wardrik.startAgent({ id: 'a', model, tools: ['shop/find_*', 'shop/refund'] }).send('hi');
      const tools = model.calls[0]!.tools!;
      // With the defaults (labels on values) the model also gets `wardrik__read`, its only way into outside text.
      assert.deepEqual(
        tools.map((tool) => tool.name),
        ['shop__find_order', 'shop__refund', 'wardrik__read'],
      );
      assert.deepEqual(tools[0], {
        type: 'function',
        name: 'shop__find_order',
        description: 'Find an order by id.',
        inputSchema: {
          type: 'object',
          properties: { id: { type: 'string', description: 'Order id, such as ord_1' } },
          required: ['id'],
          additionalProperties: false,
        },
      });
      await h.close();
    });

    it('gets a failing tool’s error as an error result it can correct from', async () => {
      const h = await agentHarness(shopTools());
      const model = scriptedModel([{ toolCalls: [{ name: 'shop__broken' }] }, { text: 'Sorry.' }]);
      await h.wardrik.startAgent({ id: 'a', model, tools: ['shop/*'] }).send('go');
      const last = model.calls[1]!.prompt.at(-1)!;
      assert.deepEqual((last.content[0] as { output: unknown }).output, {
        type: 'error-text',
        value: 'The warehouse API said no. Try find_order instead.',
      });
      await h.close();
    });

    it('gets bad arguments and unknown tools answered as errors, and the turn goes on', async () => {
      const h = await agentHarness(shopTools());
      const model = scriptedModel([
        {
          toolCalls: [
            { name: 'shop__find_order', arguments: { nope: 1 } },
            { name: 'shop__find_ordr', arguments: { id: 'x' } },
          ],
        },
        { text: 'Let me fix that.' },
      ]);
      const turn = await h.wardrik.startAgent({ id: 'a', model, tools: ['shop/*'] }).send('go');
      assert.equal(turn.status, 'done');
      const results = model.calls[1]!.prompt.at(-1)!.content as { output: { type: string; value: string } }[];
      assert.equal(results[0]!.output.type, 'error-text');
      assert.match(results[0]!.output.value, /Invalid arguments for tool "shop__find_order"/);
      assert.match(results[1]!.output.value, /No tool is named "shop__find_ordr"/);
      await h.close();
    });
  });

  describe('when one model step asks for several tool calls', () => {
    it('runs consecutive read-only calls together and any other call alone, in the model’s order', async () => {
      const log: string[] = [];
      const h = await agentHarness(shopTools(log), { policy: { rules: [{ match: 'shop/refund', action: 'allow' }] } });
      const model = scriptedModel([
        {
          toolCalls: [
            { name: 'shop__find_order', arguments: { id: 'a' } },
            { name: 'shop__find_order', arguments: { id: 'b' } },
            { name: 'shop__refund', arguments: { id: 'a' } },
            { name: 'shop__find_order', arguments: { id: 'c' } },
          ],
        },
        { text: 'Done.' },
      ]);
      await h.wardrik.startAgent({ id: 'a', model, tools: ['shop/*'] }).send('go');
      assert.deepEqual(log, [
        'find:a:start',
        'find:b:start',
        'find:a:end',
        'find:b:end',
        'refund:a:start',
        'refund:a:end',
        'find:c:start',
        'find:c:end',
      ]);
      const results = model.calls[1]!.prompt.at(-1)!.content as { toolCallId: string }[];
      assert.deepEqual(
        results.map((r) => r.toolCallId),
        ['scripted-0-0', 'scripted-0-1', 'scripted-0-2', 'scripted-0-3'],
      );
      await h.close();
    });
  });

  describe('across turns', () => {
    it('keeps the conversation: the next turn’s prompt holds the earlier turn’s messages', async () => {
      const h = await agentHarness(shopTools());
      const model = scriptedModel([
        { toolCalls: [{ name: 'shop__find_order', arguments: { id: 'ord_1' } }] },
        { text: 'Shipped.' },
        { text: 'You are welcome.' },
      ]);
      const agent = h.wardrik.startAgent({ id: 'a', model, tools: ['shop/*'] });
      await agent.send('Where is ord_1?');
      await agent.send('Thanks!');
      assert.deepEqual(
        model.calls[2]!.prompt.map((m) => m.role),
        ['user', 'assistant', 'tool', 'assistant', 'user'],
      );
      await h.close();
    });

    it('goes on with the conversation in a new process from the store', async () => {
      const store = new MemoryStore();
      const first = await Wardrik.create({ store, recoverMs: Infinity, tools: { shop: shopTools() } });
      await first
        .startAgent({ id: 'a', model: scriptedModel([{ text: 'Noted: blue.' }]), tools: [] })
        .send('My favourite colour is blue.');
      await first.close();
      const second = await Wardrik.create({ store, recoverMs: Infinity, tools: { shop: shopTools() } });
      const model = scriptedModel([{ text: 'Blue.' }]);
      await second.startAgent({ id: 'a', model, tools: [] }).send('What is my favourite colour?');
      assert.deepEqual(
        model.calls[0]!.prompt.map((m) => (m.content as { text: string }[])[0]!.text),
        ['My favourite colour is blue.', '[scripted] Noted: blue.', 'What is my favourite colour?'],
      );
      await second.close();
      await store.close();
    });

    it('runs two turns sent at once as separate runs, each seeing only the turns finished before it', async () => {
      const h = await agentHarness(shopTools());
      const model = scriptedModel((call) => ({ text: `seen ${call.prompt.length}` }));
      const agent = h.wardrik.startAgent({ id: 'a', model, tools: [] });
      const [one, two] = await Promise.all([agent.send('one'), agent.send('two')]);
      assert.notEqual(one.run, two.run);
      assert.deepEqual([one.text, two.text], ['[scripted] seen 1', '[scripted] seen 1']);
      const third = await agent.send('three');
      assert.equal(third.text, '[scripted] seen 5');
      await h.close();
    });

    it('shows no earlier turns with historyTurns: 0', async () => {
      const h = await agentHarness(shopTools());
      const model = scriptedModel([{ text: 'One.' }, { text: 'Two.' }]);
      const agent = h.wardrik.startAgent({ id: 'a', model, tools: [], historyTurns: 0 });
      await agent.send('first');
      await agent.send('second');
      assert.equal(model.calls[1]!.prompt.length, 1);
      await h.close();
    });
  });

  describe('stopping', () => {
    it('ends the turn failed, asking the model nothing more, when the send signal aborts', async () => {
      const stop = new AbortController();
      const halt = defineTool({
        name: 'halt',
        description: 'Stops the turn.',
        annotations: { readOnly: true },
        run: () => (stop.abort(), 'stopping'),
      });
      const h = await agentHarness([halt]);
      const model = scriptedModel([{ toolCalls: [{ name: 'shop__halt' }] }, { text: 'never' }]);
      const turn = await h.wardrik
        .startAgent({ id: 'a', model, tools: ['shop/*'] })
        .send('go', { signal: stop.signal });
      assert.equal(turn.status, 'failed');
      assert.match(turn.error!, /The turn was stopped \(the signal passed to send aborted\) before model call 2/);
      assert.equal(model.calls.length, 1);
      await h.close();
    });

    it('leaves a turn running for recovery when Wardrik closes under it', async () => {
      const store = new MemoryStore();
      let started!: () => void;
      const running = new Promise<void>((resolve) => (started = resolve));
      const wait = defineTool({
        name: 'wait',
        description: 'Waits until stopped.',
        annotations: { readOnly: true },
        run: (_args: object, ctx) => {
          started();
          return new Promise((_resolve, reject) =>
            ctx.signal.addEventListener('abort', () => reject(new Error('stopped'))),
          );
        },
      });
      const h = await agentHarness([wait], { store });
      const sending = h.wardrik
        .startAgent({ id: 'a', model: scriptedModel([{ toolCalls: [{ name: 'shop__wait' }] }]), tools: ['shop/*'] })
        .send('go');
      await running;
      await h.close();
      await assert.rejects(sending, /closed while the turn ran; it resumes with recover\(\) on any node/);
      const [turn] = await store.listTurns({ agent: 'a' });
      assert.equal(turn!.status, 'running');
    });
  });

  describe('maxSteps', () => {
    it('ends the turn failed, saying how to fix it, once the model has used its steps', async () => {
      const h = await agentHarness(shopTools());
      const model = scriptedModel(() => ({ toolCalls: [{ name: 'shop__find_order', arguments: { id: 'x' } }] }));
      const turn = await h.wardrik.startAgent({ id: 'a', model, tools: ['shop/*'], maxSteps: 3 }).send('loop');
      assert.equal(turn.status, 'failed');
      assert.equal(model.calls.length, 3);
      assert.match(turn.error!, /made 3 model calls in this turn \(maxSteps\).*Raise maxSteps/);
      await h.close();
    });
  });

  describe('startAgent checks its options', () => {
    const cases: [string, object, RegExp][] = [
      ['a tool pattern in the model’s form', { tools: ['shop__find_order'] }, /write "shop\/find_order"/],
      ['a pattern without a toolset', { tools: ['find_order'] }, /Write "toolset\/tool"/],
      ['tools missing', { tools: undefined }, /tools must be an array/],
      ['a negative budget', { budgetUsd: -1 }, /budgetUsd must be a number of dollars above 0/],
      ['a budget that is not a number', { budgetUsd: '2' }, /budgetUsd must be a number/],
      ['maxSteps 0', { maxSteps: 0 }, /maxSteps must be a whole number from 1/],
      ['a bad policy rule', { policy: [{ match: 'refund', action: 'allow' }] }, /rules name tools as "toolset\/tool"/],
      [
        'an unknown provider',
        { model: 'acme:m1' },
        /no provider "acme" is registered \(there are: anthropic, google, openai\)\. Register it with wardrik\.models\.register\("acme"/,
      ],
      ['a model without a provider', { model: 'claude-haiku-4-5' }, /is not "provider:model"/],
      [
        'a model of neither AI SDK line (v4 or v3)',
        { model: { specificationVersion: 'v2', doGenerate() {} } },
        /specificationVersion "v2"/,
      ],
      ['a bad id', { id: 'has space' }, /Agent id "has space" must be/],
    ];
    for (const [what, change, message] of cases) {
      it(`refuses ${what} with a ConfigurationError naming the fix`, async () => {
        const h = await agentHarness(shopTools());
        assert.throws(
          () => h.wardrik.startAgent({ id: 'a', model: scriptedModel([]), tools: ['shop/*'], ...change } as never),
          (error: unknown) => error instanceof ConfigurationError && message.test(error.message),
        );
        await h.close();
      });
    }

    it('refuses a budget on a model the price table does not know', async () => {
      const h = await agentHarness(shopTools());
      const model = {
        ...scriptedModel([]),
        specificationVersion: 'v3',
        provider: 'acme.chat',
        modelId: 'm1',
        doGenerate: async () => ({}),
      } as never;
      assert.throws(
        () => h.wardrik.startAgent({ id: 'a', model, tools: [], budgetUsd: 1 }),
        /model "acme:m1" has no price.*price: \{ inputPerMTok, outputPerMTok \}/,
      );
      await h.close();
    });

    it('refuses the same agent id twice', async () => {
      const h = await agentHarness(shopTools());
      h.wardrik.startAgent({ id: 'a', model: scriptedModel([]), tools: [] });
      assert.throws(() => h.wardrik.startAgent({ id: 'a', model: scriptedModel([]), tools: [] }), /already started/);
      await h.close();
    });
  });
});
