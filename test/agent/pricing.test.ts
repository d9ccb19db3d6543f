import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigurationError, DEFAULT_PRICES, MemoryStore, Wardrik, type CostEvent } from '../../src/index.js';
import { Pricing } from '../../src/agent/pricing.js';
import { scriptedModel } from '../../src/testing/index.js';
import { agentHarness, shopTools } from './helpers.js';
import { addSpend } from '../../src/store/journal-writes.js';

const round = (usd: number): number => Math.round(usd * 1e9) / 1e9;

describe('Pricing', () => {
  describe('the price table', () => {
    it('has defaults for the built-in providers’ models, dated snapshots included', () => {
      const pricing = new Pricing();
      assert.deepEqual(pricing.priceOf('anthropic:claude-haiku-4-5'), DEFAULT_PRICES['anthropic:claude-haiku-4-5']);
      assert.deepEqual(
        pricing.priceOf('anthropic:claude-haiku-4-5-20251001'),
        DEFAULT_PRICES['anthropic:claude-haiku-4-5'],
      );
      assert.deepEqual(pricing.priceOf('openai:gpt-5-mini-2025-08-07'), DEFAULT_PRICES['openai:gpt-5-mini']);
      assert.equal(
        pricing.priceOf('openai:gpt-5-mini-large'),
        undefined,
        'a longer name is another model, not a snapshot',
      );
      assert.equal(pricing.priceOf('acme:m1'), undefined);
    });

    it('takes the app’s prices over the defaults, and prefixes ending in *', () => {
      const pricing = new Pricing({
        'anthropic:claude-haiku-4-5': { inputPerMTok: 2, outputPerMTok: 6 },
        'local:*': { inputPerMTok: 0.1, outputPerMTok: 0.2 },
      });
      assert.equal(pricing.priceOf('anthropic:claude-haiku-4-5')!.inputPerMTok, 2);
      assert.equal(pricing.priceOf('local:tiny-1')!.outputPerMTok, 0.2);
    });

    it('prices uncached input, cache reads, cache writes and output each at its own rate', () => {
      const usd = Pricing.usd(
        { inputPerMTok: 3, outputPerMTok: 15, cacheReadPerMTok: 0.3, cacheWritePerMTok: 3.75 },
        { inputTokens: 1_000_000, cacheReadTokens: 500_000, cacheWriteTokens: 100_000, outputTokens: 100_000 },
      );
      assert.equal(round(usd), round(0.4 * 3 + 0.5 * 0.3 + 0.1 * 3.75 + 0.1 * 15));
    });

    it('refuses a price that is not a number of dollars, at Wardrik.create', async () => {
      assert.throws(
        () => new Pricing({ 'x:y': { inputPerMTok: -1, outputPerMTok: 1 } }),
        /Price "x:y": inputPerMTok must be a number of dollars per million tokens/,
      );
      await assert.rejects(
        Wardrik.create({
          store: 'memory:',
          recoverMs: Infinity,
          agents: { prices: { 'x:y': { inputPerMTok: 1 } as never } },
        }),
        (error: unknown) =>
          error instanceof ConfigurationError && /Price "x:y": outputPerMTok must be/.test(error.message),
      );
    });
  });

  describe('an agent’s budget', () => {
    const paid = { inputPerMTok: 1000, outputPerMTok: 0 }; // 100 input tokens: $0.10 a step

    it('counts model steps and tool costs together, and starts no model call once it is spent', async () => {
      const h = await agentHarness(shopTools());
      const model = scriptedModel(() => ({ toolCalls: [{ name: 'shop__quote' }], usage: { inputTokens: 100 } }));
      const agent = h.wardrik.startAgent({ id: 'a', model, tools: ['shop/*'], budgetUsd: 0.5, price: paid });
      const turn = await agent.send('quote twice');
      assert.equal(turn.status, 'budget_spent');
      assert.equal(model.calls.length, 2);
      assert.equal(round(turn.spentUsd), 0.7);
      assert.match(
        turn.error!,
        /Agent "a" has spent \$0\.7000 of its \$0\.5 budget, so no further model call started\. Raise budgetUsd/,
      );
      const costs = h.events.filter((e): e is CostEvent => e.type === 'cost');
      assert.deepEqual(
        costs.map((c) => [c.source, round(c.usd), round(c.totalUsd)]),
        [
          ['model', 0.1, 0.1],
          ['tool', 0.25, 0.35],
          ['model', 0.1, 0.45],
          ['tool', 0.25, 0.7],
        ],
      );
      assert.equal(
        await h.wardrik.container.resolve<MemoryStore>(Symbol.for('wardrik:store')).getSpend('a'),
        700_000,
        'kept in whole micro-dollars',
      );
      await h.close();
    });

    it('holds the budget for model calls: 20 turns of one agent sent at once spend at most one step past it', async () => {
      const h = await agentHarness(shopTools());
      // $0.30 a step (300 input tokens), and no maximum declared: the first call runs alone until its cost is known.
      const model = scriptedModel(() => ({ text: 'done', usage: { inputTokens: 300 } }));
      const agent = h.wardrik.startAgent({ id: 'a', model, tools: [], budgetUsd: 1, price: paid });
      const turns = await Promise.all(Array.from({ length: 20 }, () => agent.send('hi')));
      const spent = await h.wardrik.container.resolve<MemoryStore>(Symbol.for('wardrik:store')).getSpend('a');
      assert.ok(spent <= 1_300_000, `spent $${spent / 1e6}`);
      assert.equal(turns.filter((turn) => turn.status === 'done').length, spent / 300_000);
      assert.equal(turns.filter((turn) => turn.status === 'budget_spent').length, 20 - spent / 300_000);
      await h.close();
    });

    it("holds a model call's maximum output cost when maxOutputTokens is set", async () => {
      const h = await agentHarness(shopTools());
      // At most $0.25 of output a step (250 tokens at $1 000 per million); each step costs $0.20.
      const model = scriptedModel(() => ({ text: 'done', usage: { outputTokens: 200 } }));
      const agent = h.wardrik.startAgent({
        id: 'a',
        model,
        tools: [],
        budgetUsd: 1,
        price: { inputPerMTok: 0, outputPerMTok: 1000 },
        maxOutputTokens: 250,
      });
      const turns = await Promise.all(Array.from({ length: 20 }, () => agent.send('hi')));
      const spent = await h.wardrik.container.resolve<MemoryStore>(Symbol.for('wardrik:store')).getSpend('a');
      assert.ok(spent <= 1_000_000, `spent $${spent / 1e6}: never past the budget when each call holds its maximum`);
      assert.equal(turns.filter((turn) => turn.status === 'done').length, spent / 200_000);
      assert.ok(spent >= 800_000, 'at least four $0.25 holds fit');
      await h.close();
    });

    it('ends a turn at once when the agent’s budget was already spent', async () => {
      const store = new MemoryStore();
      await addSpend(store, 'a', 1_000_000);
      const h = await agentHarness(shopTools(), { store });
      const model = scriptedModel([{ text: 'never' }]);
      const turn = await h.wardrik.startAgent({ id: 'a', model, tools: [], budgetUsd: 1, price: paid }).send('hi');
      assert.equal(turn.status, 'budget_spent');
      assert.equal(model.calls.length, 0);
      assert.deepEqual(
        h.types((e) => e.type.startsWith('run.')),
        ['run.started', 'run.finished'],
      );
      await h.close();
    });

    it('tells the model a paid tool did not run once a model step spent the budget', async () => {
      const h = await agentHarness(shopTools());
      const model = scriptedModel([
        { toolCalls: [{ name: 'shop__quote' }], usage: { inputTokens: 1000 } },
        { text: 'never' },
      ]);
      const turn = await h.wardrik
        .startAgent({ id: 'a', model, tools: ['shop/*'], budgetUsd: 0.5, price: paid })
        .send('quote');
      assert.equal(turn.status, 'budget_spent');
      assert.equal(model.calls.length, 1);
      assert.deepEqual(
        h.types((e) => e.type === 'tool.failed'),
        ['tool.failed'],
      );
      await h.close();
    });

    it('emits a cost event per model step, priced from the agents’ price table', async () => {
      const h = await agentHarness(shopTools(), {
        agents: { prices: { 'scripted:scripted-priced': { inputPerMTok: 2, outputPerMTok: 10 } } },
      });
      const model = scriptedModel([{ text: 'Hi.', usage: { inputTokens: 500_000, outputTokens: 10_000 } }], {
        name: 'priced',
      });
      const turn = await h.wardrik.startAgent({ id: 'a', model, tools: [] }).send('hi');
      const [cost] = h.events.filter((e): e is CostEvent => e.type === 'cost');
      assert.deepEqual(
        { ...cost, time: 0, usd: round(cost!.usd), totalUsd: round(cost!.totalUsd) },
        {
          type: 'cost',
          agent: 'a',
          run: turn.run,
          source: 'model',
          usd: 1.1,
          totalUsd: 1.1,
          totalMicroUsd: 1_100_000,
          time: 0,
        },
      );
      await h.close();
    });
  });
});
