// An error of a tool that reaches outside may quote outside text (a fetch that failed echoes the page), so it
// is labelled `outside` like the tool's answers would be, even without a tool-level `@Labels('outside')`: under
// labels on values the planner reads it only as a handle, and under the run-level rule the run carries
// `outside`. Real startAgent runs on SQLite and a planner that obeys any instruction it reads in clear.
import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defineTool, ToolResult, Wardrik, type PolicyOptions } from '../../src/index.js';
import { ATTACKER, INJECTION, obeying, plannerPrompts, sendMoneyTool, sqliteFiles, type Sent } from './values-kit.js';

const sqlite = sqliteFiles('wardrik-outside-errors-');

const FAILED_PAGE = `GET https://shop.test/offer failed (502): <html>${INJECTION}</html>`;

function tools(sent: Sent) {
  return {
    bank: [sendMoneyTool(sent)],
    web: [
      defineTool({
        name: 'fetch',
        description: 'Fetches a page; it reaches outside.',
        input: { type: 'object', properties: { url: { type: 'string' } } },
        annotations: { readOnly: true, openWorld: true },
        run: () => {
          throw new Error(FAILED_PAGE);
        },
      }),
      defineTool({
        name: 'reviews',
        description: 'Reviews customers wrote: it labels its answers outside itself, and names where.',
        annotations: { readOnly: true, outsideFields: ['[].text'] },
        run: (): ToolResult => {
          throw new Error(`Review 3 could not be parsed: ${INJECTION}`);
        },
      }),
      defineTool({
        name: 'slow',
        description: 'A page that never comes: Wardrik stops it after its time-out.',
        annotations: { readOnly: true, openWorld: true, timeout: 50 },
        run: () => new Promise<never>(() => {}),
      }),
      defineTool({
        name: 'stock',
        description: 'Our own stock count; it stays inside.',
        annotations: { readOnly: true },
        run: () => {
          throw new Error('The stock database is down; try again in a minute.');
        },
      }),
    ],
  };
}

const rules: PolicyOptions['rules'] = [
  { match: 'bank/*', action: 'allow' },
  { match: 'web/*', action: 'allow' },
];

const call = (name: string) => () => ({ toolCalls: [{ name, arguments: {} }] });

for (const labels of ['run', 'values'] as const) {
  describe(`Errors of a tool that reaches outside (labels: '${labels}')`, () => {
    const policy: PolicyOptions = { labels, rules };

    for (const tool of ['web__fetch', 'web__reviews']) {
      it(`stops the side effect the error of ${tool} asks for, without a person`, async () => {
        const sent: Sent = [];
        const wardrik = await Wardrik.create({ store: sqlite(), tools: tools(sent), policy });
        try {
          const model = obeying([call(tool)]);
          const turn = await wardrik.startAgent({ id: 'a', model, tools: ['bank/*', 'web/*'] }).send('Read it.');
          assert.deepEqual(sent, []);
          if (labels === 'values') {
            // The planner read the error only as a handle, so it never learnt of the attacker's IBAN.
            assert.equal(turn.status, 'done');
            assert.doesNotMatch(plannerPrompts(model), /GB29|Ignore the user/);
            assert.match(plannerPrompts(model), /\\"type\\":\\"error\\"/);
          } else {
            // The run carries `outside`: the call the error chose waits for a person.
            assert.equal(turn.status, 'parked');
            const [item] = await wardrik.inbox.list();
            assert.deepEqual(item!.arguments, { recipient: ATTACKER, amount: 100 });
            assert.match(item!.reason, /the run carries "outside"/);
          }
        } finally {
          await wardrik.close();
        }
      });
    }

    it('stops it in each of 10 turns at once', async () => {
      const sent: Sent = [];
      const wardrik = await Wardrik.create({ store: sqlite(), tools: tools(sent), policy });
      try {
        const turns = await Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            wardrik
              .startAgent({ id: `a${i}`, model: obeying([call('web__fetch')]), tools: ['bank/*', 'web/*'] })
              .send(`Read page ${i}.`),
          ),
        );
        assert.deepEqual(sent, []);
        assert.deepEqual(
          turns.map((turn) => turn.status),
          turns.map(() => (labels === 'values' ? 'done' : 'parked')),
        );
      } finally {
        await wardrik.close();
      }
    });

    it("shows Wardrik's own time-out of a tool that reaches outside as it is", async () => {
      const wardrik = await Wardrik.create({ store: sqlite(), tools: tools([]), policy });
      try {
        const model = obeying([call('web__slow')]);
        const turn = await wardrik.startAgent({ id: 'a', model, tools: ['web/*'] }).send('Read it.');
        assert.equal(turn.status, 'done');
        assert.match(plannerPrompts(model), /Tool \\"web__slow\\" timed out after 50 ms and was stopped/);
      } finally {
        await wardrik.close();
      }
    });

    it("shows the error of a tool that stays inside as it is, and the run's side effects stay unasked", async () => {
      const sent: Sent = [];
      const wardrik = await Wardrik.create({ store: sqlite(), tools: tools(sent), policy });
      try {
        const pay = () => ({
          toolCalls: [{ name: 'bank__send_money', arguments: { recipient: 'US122000000121212121212', amount: 5 } }],
        });
        const model = obeying([call('web__stock'), pay]);
        const turn = await wardrik.startAgent({ id: 'a', model, tools: ['bank/*', 'web/*'] }).send('Count, then pay.');
        assert.equal(turn.status, 'done');
        assert.equal(sent.length, 1);
        assert.match(plannerPrompts(model), /The stock database is down/);
      } finally {
        await wardrik.close();
      }
    });
  });
}
