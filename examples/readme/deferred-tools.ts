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
  // The provider's search below needs the provider's key; nothing is sent to it here.
  agents: { providers: { anthropic: { apiKey: process.env.ANTHROPIC_API_KEY ?? 'your-key' } } },
});
const model = scriptedModel([
  { toolCalls: [{ name: 'wardrik__search_tools', arguments: { query: 'open a GitHub issue' } }] },
  (call) => ({ text: `Loaded: ${call.lastToolResult}` }),
]);
const turn = await wardrik
  .startAgent({ id: 'desk', model, tools: ['orders/*'], deferred: ['github/*', 'crm/*'] })
  .send('File an issue about the broken mug.');
console.log(turn.text);

// The same deferred tools, searched by the provider's own tool search (docs/agents.md, "The provider's own search").
const native = wardrik.startAgent({
  id: 'desk-native',
  model: 'anthropic:claude-sonnet-4-5',
  tools: ['orders/*'],
  deferred: ['github/*'],
  toolSearch: 'provider',
});
console.log(native.id);

// docs/mcp-server.md: the same catalog served, GitHub's and the CRM's tools found with wardrik__search_tools.
const server = wardrik.mcpServer({ tools: ['**'], deferred: ['github/*', 'crm/*'] });
await server.close();
await wardrik.close();
