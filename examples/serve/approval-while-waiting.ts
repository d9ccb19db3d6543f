// An MCP client calls a tool that needs a person's approval. Wardrik holds the request open (sending
// progress while it waits), a person approves in the inbox, and the client gets the call's one result.
//   npm run build && node dist/examples/serve/approval-while-waiting.js
import 'reflect-metadata';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Wardrik } from '../../src/index.js';
import { OrderTools } from '../orders/order-tools.js';

const wardrik = await Wardrik.create({ store: 'memory:', toolsets: [OrderTools] });
const server = wardrik.mcpServer({
  tools: ['orders/*'],
  authenticate: false, // loopback, one user: the example's own client
  approvals: { waitMs: 30_000, progressMs: 200 },
});
const url = await server.listen({ port: 0 });

// The person: whoever watches the inbox (the `wardrik inbox` command, a web page, Slack…). In this
// demo they look once the client has been told it waits, so the approval always arrives mid-wait.
let clientWaiting = false;
const person = setInterval(async () => {
  if (!clientWaiting) return;
  for (const item of await wardrik.inbox.list()) {
    console.log(`person: approving ${item.tool} ${JSON.stringify(item.arguments)} for ${item.agent}`);
    await wardrik.inbox.approve(item.id, { by: 'ana@example.com', digest: item.digest });
  }
}, 500);

// The MCP client: Claude Desktop, an IDE agent, another service's Wardrik hub…
const client = new Client({ name: 'example-client', version: '1.0.0' });
await client.connect(new StreamableHTTPClientTransport(new URL(url)));
const result = await client.callTool({ name: 'orders__refund_order', arguments: { orderId: 'ord_1001' } }, undefined, {
  onprogress: (progress) => {
    if (!clientWaiting) console.log(`client: still waiting (${progress.message})`);
    clientWaiting = true;
  },
});
console.log(`client: ${result.isError === true ? 'error' : 'result'} ${JSON.stringify(result.content)}`);

clearInterval(person);
await client.close();
await wardrik.close();
