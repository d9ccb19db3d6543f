// docs/agents.md: an agent with many tools, most of them deferred and loaded by the search tool.
import 'reflect-metadata';
import { defineTool, Wardrik } from '../../src/index.js';
import { scriptedModel } from '../../src/testing/index.js';
import { OrderTools } from '../orders/order-tools.js';

const wardrik = await Wardrik.create({
  toolsets: [OrderTools],
  tools: {
    github: [
      defineTool({
        name: 'create_issue',
        description: 'Opens a new GitHub issue.',
        input: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] },
        run: ({ title }: { title: string }) => `opened "${title}"`,
      }),
    ],
  },
  store: 'memory:',
});
const model = scriptedModel([
  { toolCalls: [{ name: 'wardrik__search_tools', arguments: { query: 'open a GitHub issue' } }] },
  (call) => ({ text: `Loaded: ${call.lastToolResult}` }),
]);
const turn = await wardrik
  .startAgent({ id: 'desk', model, tools: ['orders/*'], deferred: ['github/*', 'crm/*'] })
  .send('File an issue about the broken mug.');
console.log(turn.text);
await wardrik.close();
