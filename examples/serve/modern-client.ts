// A 2026-07-28 MCP client (the SDK v2's, pinned) calls a tool that needs a person's approval. Wardrik
// answers `input_required` at once; a person approves in the inbox; the client retries with the
// `requestState` it was given and gets the call's one result. It sends the conversation token back, so
// the server's labels follow its calls.
//   npm run build && node dist/examples/serve/modern-client.js
import 'reflect-metadata';
import { Client, StreamableHTTPClientTransport, type CallToolResult } from '@modelcontextprotocol/client';
import { Wardrik } from '../../src/index.js';
import { OrderTools } from '../orders/order-tools.js';

const wardrik = await Wardrik.create({ store: 'memory:', toolsets: [OrderTools] });
const url = await wardrik.mcpServer({ tools: ['orders/*'], authenticate: false }).listen({ port: 0 });

/** What a Wardrik server adds to a result's `_meta` (a waiting call's too). */
interface WardrikMeta {
  readonly 'wardrik/conversation'?: string;
  readonly 'wardrik/inbox'?: string;
  readonly 'wardrik/waiting'?: string;
}
/** A tool's result, or the server's word that the call waits: retry with `requestState`. */
type Answer = CallToolResult & { resultType?: 'input_required'; requestState?: string };

// Manual multi-round-trip mode: with the SDK's default (autoFulfill), an `input_required` that asks the
// client nothing is sent back at once, ten times, and then thrown as INPUT_REQUIRED_ROUNDS_EXCEEDED.
const client = new Client(
  { name: 'example-client', version: '1.0.0' },
  { versionNegotiation: { mode: { pin: '2026-07-28' } }, inputRequired: { autoFulfill: false } },
);
await client.connect(new StreamableHTTPClientTransport(new URL(url)));

let conversation: string | undefined;
async function call(name: string, args: Record<string, unknown>, requestState?: string): Promise<Answer> {
  const answer = (await client.callTool(
    {
      name,
      arguments: args,
      ...(requestState === undefined ? {} : { requestState }),
      // The token of the last result: this call continues the same run, with its labels.
      ...(conversation === undefined ? {} : { _meta: { 'wardrik/conversation': conversation } }),
    },
    { allowInputRequired: true }, // hand `input_required` back rather than retrying it
  )) as Answer;
  conversation = (answer._meta as WardrikMeta | undefined)?.['wardrik/conversation'] ?? conversation;
  return answer;
}

const found = await call('orders__find_order', { payment_intent: 'pi_123' });
console.log(`client: found ${JSON.stringify(found.structuredContent)}`);
let refund = await call('orders__refund_order', { orderId: 'ord_1001' });
while (refund.resultType === 'input_required') {
  console.log(`client: ${(refund._meta as WardrikMeta)['wardrik/waiting']?.split(':')[0]}`);
  // The person, in another process or a browser: here, once, through this process's inbox.
  for (const item of await wardrik.inbox.list()) {
    console.log(`person: approving ${item.tool} ${JSON.stringify(item.arguments)} (labels: ${item.labels.join(', ')})`);
    await wardrik.inbox.approve(item.id, { by: 'ana@example.com', digest: item.digest });
  }
  // Minutes or hours later, on any node with the same store and state key: the same call, its one result.
  refund = await call('orders__refund_order', { orderId: 'ord_1001' }, refund.requestState);
}
console.log(`client: result ${JSON.stringify(refund.structuredContent)}`);

await client.close();
await wardrik.close();
