import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defineTool, Wardrik, type ToolDefinition } from '../../src/index.js';
import { scriptedModel } from '../../src/testing/index.js';
import { scratchStores } from '../crash/scratch-stores.js';

/**
 * A model that gives two tool calls of one step the same id (some OpenAI-compatible servers number
 * every call "call_0"): the two are one call in the journal, so one of them runs and the other is
 * answered from the journal. Both start in one commit (the step's calls start together), so each
 * store must answer the second first write of the call as refused, as one write after the other would.
 */
const { stores: STORES } = scratchStores('duplicate-ids');

for (const [name, storeUrl] of STORES) {
  describe(`Two calls with one id in a model step, on ${name}`, () => {
    it('runs a side-effecting tool once, not once for each', async () => {
      const sent: number[] = [];
      const tools: ToolDefinition[] = [
        defineTool({
          name: 'send',
          description: 'Sends a payment.',
          input: { type: 'object', properties: { n: { type: 'number' } }, additionalProperties: false },
          run: ({ n }: { n: number }) => (sent.push(n), `sent ${n}`),
        }),
      ];
      const model = scriptedModel([
        {
          toolCalls: [
            { id: 'call_0', name: 't__send', arguments: { n: 1 } },
            { id: 'call_0', name: 't__send', arguments: { n: 2 } },
          ],
        },
        { text: 'Done.' },
      ]);
      const wardrik = await Wardrik.create({
        store: storeUrl(),
        recoverMs: Infinity,
        tools: { t: tools },
        policy: { rules: [{ match: 't/*', action: 'allow' }] },
      });
      try {
        const turn = await wardrik.startAgent({ id: 'payer', model, tools: ['t/*'] }).send('Pay.');
        assert.deepEqual(sent, [1], `the tool ran for: ${JSON.stringify(sent)}`);
        assert.equal(turn.status, 'done', turn.error);
      } finally {
        await wardrik.close();
      }
    });
  });
}
