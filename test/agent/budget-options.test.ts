import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryStore, Wardrik, type AgentOptions } from '../../src/index.js';
import { scriptedModel } from '../../src/testing/index.js';

/** `startAgent({ budget })` is checked at start-up: each mistake is refused with a message naming the fix. */
describe('an agent budget by period, checked at start-up', () => {
  const refused: [string, Record<string, unknown>, RegExp][] = [
    ['budget and budgetUsd together', { budgetUsd: 5, budget: { usd: 5 } }, /give budget or budgetUsd, not both/],
    [
      'an unknown time zone',
      { budget: { usd: 5, per: 'day', timeZone: 'Europe/Atlantis' } },
      /IANA time zone.*Europe\/Berlin/,
    ],
    ['a period of a week', { budget: { usd: 5, per: 'week' } }, /budget\.per is 'day' or 'month'/],
    [
      'a time zone without a period',
      { budget: { usd: 5, timeZone: 'Asia/Tokyo' } },
      /give per: 'day' or 'month' with it/,
    ],
    ['no dollars', { budget: { per: 'day' } }, /budget\.usd .* such as 50/],
    ['nothing to spend', { budget: { usd: 0, per: 'day' } }, /budget\.usd .* above 0/],
    ['a warning past the budget', { budget: { usd: 5, per: 'day', warnAt: 1.5 } }, /budget\.warnAt .* such as 0\.8/],
    ['a budget that is a number', { budget: 50 }, /budget is \{ usd, per\?, timeZone\?, warnAt\? \}/],
  ];
  for (const [what, options, message] of refused) {
    it(`refuses ${what}`, async () => {
      const wardrik = await Wardrik.create({ store: new MemoryStore() });
      assert.throws(
        () => wardrik.startAgent({ id: 'a', model: scriptedModel([]), tools: [], ...options } as AgentOptions),
        (error: Error) =>
          error.name === 'ConfigurationError' && message.test(error.message) && /Agent "a"/.test(error.message),
      );
      await wardrik.close();
    });
  }

  it('takes a day in a time zone with a warning, and a whole-life budget with a warning', async () => {
    const wardrik = await Wardrik.create({ store: new MemoryStore() });
    wardrik.startAgent({
      id: 'a',
      model: scriptedModel([]),
      tools: [],
      budget: { usd: 50, per: 'day', timeZone: 'Europe/Berlin', warnAt: 0.8 },
    });
    wardrik.startAgent({ id: 'b', model: scriptedModel([]), tools: [], budget: { usd: 50, warnAt: 1 } });
    await wardrik.close();
  });
});
