// Handles in object keys, under labels on values: a key that holds a handle is put back like a value (by the
// value's text, as a key is text), and the value's labels join the call's, so a side effect keyed by outside
// text asks a person; two keys that would name the same text are refused. Real startAgent runs on SQLite.
import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defineTool, Wardrik, type PolicyOptions } from '../../src/index.js';
import { scriptedModel } from '../../src/testing/index.js';
import {
  handleOf,
  OWN_IBAN,
  planner,
  plannerPrompts,
  sqliteFiles,
  transactionsTool,
  transactionText,
} from './values-kit.js';

const sqlite = sqliteFiles('wardrik-handle-keys-');

const TRANSACTION = transactionText();

/** What pay_many paid: one record a call, by recipient. */
type Paid = Record<string, number>[];

function tools(paid: Paid) {
  return {
    bank: [
      transactionsTool(),
      defineTool({
        name: 'pay_many',
        description: 'Pays each recipient (the keys) its amount.',
        input: {
          type: 'object',
          properties: { payments: { type: 'object', additionalProperties: { type: 'number' } } },
          required: ['payments'],
        },
        annotations: { idempotent: true },
        run: (args: { payments: Record<string, number> }) => {
          paid.push(args.payments);
          return 'paid';
        },
      }),
    ],
  };
}

const VALUES: PolicyOptions = { labels: 'values', rules: [{ match: 'bank/*', action: 'allow' }] };

const readTransactions = () => ({ toolCalls: [{ name: 'bank__transactions', arguments: {} }] });
const payMany = (payments: Record<string, number>) => ({
  toolCalls: [{ name: 'bank__pay_many', arguments: { payments } }],
});

describe("Handles in object keys (policy.labels: 'values')", () => {
  it('puts a handle in a key back, and asks before the side effect, naming the key and its source', async () => {
    const paid: Paid = [];
    const wardrik = await Wardrik.create({ store: sqlite(), tools: tools(paid), policy: VALUES });
    try {
      const model = planner([readTransactions, (call) => payMany({ [handleOf(call)]: 50, [OWN_IBAN]: 5 })]);
      const agent = wardrik.startAgent({ id: 'a', model, tools: ['bank/*'] });
      const turn = await agent.send('Pay the rent.');
      assert.equal(turn.status, 'parked');
      assert.deepEqual(paid, []);
      const [item] = await wardrik.inbox.list();
      assert.match(item!.reason, /payments\.\$outside_1 \(key\) ← \$outside_1 \(from bank\/transactions, text\)/);
      assert.deepEqual(item!.labels, ['outside']);
      // The person sees, and approves, the real key.
      assert.deepEqual(item!.arguments, { payments: { [TRANSACTION]: 50, [OWN_IBAN]: 5 } });
      await wardrik.inbox.approve(item!.id, { by: 'dana' });
      assert.equal((await agent.result(turn.run)).status, 'done');
      assert.deepEqual(paid, [{ [TRANSACTION]: 50, [OWN_IBAN]: 5 }]);
      assert.doesNotMatch(plannerPrompts(model), /Ignore the user/);
    } finally {
      await wardrik.close();
    }
  });

  it('runs a side effect keyed only by what the user gave, unasked', async () => {
    const paid: Paid = [];
    const wardrik = await Wardrik.create({ store: sqlite(), tools: tools(paid), policy: VALUES });
    try {
      const model = planner([readTransactions, () => payMany({ [OWN_IBAN]: 5 })]);
      const turn = await wardrik.startAgent({ id: 'a', model, tools: ['bank/*'] }).send(`Pay 5 to ${OWN_IBAN}.`);
      assert.equal(turn.status, 'done');
      assert.deepEqual(paid, [{ [OWN_IBAN]: 5 }]);
    } finally {
      await wardrik.close();
    }
  });

  it('refuses keys that name the same text once put back, and a handle the run never handed out, running nothing', async () => {
    const paid: Paid = [];
    const wardrik = await Wardrik.create({ store: sqlite(), tools: tools(paid), policy: VALUES });
    try {
      const answers: string[] = [];
      const model = planner([
        readTransactions,
        // The second key is the very text the handle stands for (the model could not know it: a test of the rule).
        (call) => payMany({ [handleOf(call)]: 50, [TRANSACTION]: 1 }),
        (call) => {
          answers.push(call.lastToolResult ?? '');
          return payMany({ 'to $outside_9': 1 });
        },
        (call) => {
          answers.push(call.lastToolResult ?? '');
          return { text: 'Sorry.' };
        },
      ]);
      const turn = await wardrik.startAgent({ id: 'a', model, tools: ['bank/*'] }).send('Pay.');
      assert.equal(turn.status, 'done');
      assert.deepEqual(paid, []);
      assert.match(answers[0]!, /The key "\$outside_1" at payments names the same text as another key/);
      // The refusal names the key as the model wrote it, never the value it stands for.
      assert.doesNotMatch(answers[0]!, /Ignore the user/);
      assert.match(answers[1]!, /"\$outside_9" is not one this run handed out/);
    } finally {
      await wardrik.close();
    }
  });

  it('resolves each of 10 runs at once to its own value', async () => {
    const paid: Paid = [];
    const wardrik = await Wardrik.create({ store: sqlite(), tools: tools(paid), policy: VALUES });
    try {
      const model = scriptedModel((call) => {
        const asked = JSON.stringify(call.prompt.find((m) => m.role === 'user')?.content);
        const n = Number(/page (\d+)/.exec(asked)?.[1]);
        const results = call.prompt.filter((m) => m.role === 'tool').length;
        if (results === 0) return { toolCalls: [{ name: 'bank__transactions', arguments: { n } }] };
        if (results === 1) return payMany({ [handleOf(call)]: n });
        return { text: 'Done.' };
      });
      const turns = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          wardrik.startAgent({ id: `a${i}`, model, tools: ['bank/*'] }).send(`Pay page ${i}.`),
        ),
      );
      assert.deepEqual(
        turns.map((turn) => turn.status),
        turns.map(() => 'parked'),
      );
      const items = await wardrik.inbox.list();
      assert.deepEqual(
        items.map((item) => JSON.stringify(item.arguments)).sort(),
        Array.from({ length: 10 }, (_, i) => JSON.stringify({ payments: { [transactionText(i)]: i } })).sort(),
      );
    } finally {
      await wardrik.close();
    }
  });
});
