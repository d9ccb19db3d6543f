import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Wardrik } from '../../src/index.js';
import { orderTools, serving, text } from './helpers.js';

/** `mcpServer({ maxCalls })`: the most calls of a tool in one session, over a real MCP client on HTTP. */
describe('mcpServer maxCalls', () => {
  it('answers calls past the limit of a session denied, unrun, and gives another session its own', async () => {
    const s = await serving({ maxCalls: { 'orders/find_order': 2 } });
    try {
      const first = await s.client();
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          first.callTool({ name: 'orders__find_order', arguments: { id: `o-${i}` } }),
        ),
      );
      const denied = answers.filter((a) => a.isError === true);
      assert.equal(answers.length - denied.length, 2, answers.map(text).join('\n'));
      for (const answer of denied) assert.match(text(answer), /maxCalls/);
      // Other tools are not limited.
      const other = await first.callTool({ name: 'orders__read_web', arguments: {} });
      assert.notEqual(other.isError, true, text(other));
      const second = await s.client();
      const again = await second.callTool({ name: 'orders__find_order', arguments: { id: 'o-1' } });
      assert.notEqual(again.isError, true, text(again));
    } finally {
      await s.close();
    }
  });

  it('refuses a bad maxCalls at start-up, naming the fix', async () => {
    const wardrik = await Wardrik.create({
      store: 'memory:',
      tools: { orders: orderTools({ refunds: [], aborted: [] }) },
    });
    try {
      assert.throws(
        () => wardrik.mcpServer({ tools: ['orders/*'], authenticate: false, maxCalls: { find_order: 2 } }),
        /mcpServer: maxCalls pattern "find_order" is not a pattern on "toolset\/tool"/,
      );
      assert.throws(
        () => wardrik.mcpServer({ tools: ['orders/*'], authenticate: false, maxCalls: { 'orders/*': 0 } }),
        /mcpServer: maxCalls.* a whole number from 1/,
      );
    } finally {
      await wardrik.close();
    }
  });
});
