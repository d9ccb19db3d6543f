// An AI SDK 7 agent loop (generateText) whose tools go through Wardrik's gate: the order lookup runs at
// once, the refund stops the loop with an approval request, and the loop goes on once a person approved.
// Offline it plays the scripted model from wardrik/testing (an AI SDK 7 model), so it runs anywhere.
import 'reflect-metadata';
import { generateText, stepCountIs, type ModelMessage } from 'ai';
import { Wardrik } from '../../src/index.js';
import { aiSdkTools, inboxApprovals } from '../../src/ai-sdk/index.js';
import { scriptedModel } from '../../src/testing/index.js';
import { OrderTools } from '../orders/order-tools.js';

const model = scriptedModel([
  { toolCalls: [{ name: 'orders__find_order', arguments: { payment_intent: 'pi_123' } }] },
  { toolCalls: [{ name: 'orders__refund_order', arguments: { orderId: 'ord_1001' } }] },
  (call) => ({ text: `Refunded: ${call.lastToolResult ?? 'no answer'}` }),
]);

const wardrik = await Wardrik.create({ toolsets: [OrderTools], store: 'memory:' });
// One run per conversation: labels follow it, and a call is known by the model's call id within it.
const options = { agent: 'order-desk', tools: ['orders/*'], run: 'conversation-42', by: 'alice@example.com' };
const tools = aiSdkTools(wardrik, options);

const messages: ModelMessage[] = [{ role: 'user', content: 'Refund the order paid with pi_123.' }];
let result = await generateText({ model, tools, messages, stopWhen: stepCountIs(5) });
messages.push(...result.response.messages);

// The refund waits for a person: the loop stopped with the AI SDK's own approval request.
const request = result.content.find((part) => part.type === 'tool-approval-request');
if (request === undefined) throw new Error('expected the refund to wait for a person');
console.log(`Waiting for a person: ${request.toolCall.toolName} ${JSON.stringify(request.toolCall.input)}`);

// The app's UI approves (or Wardrik's inbox does, and inboxApprovals brings that answer in).
messages.push({
  role: 'tool',
  content: [{ type: 'tool-approval-response', approvalId: request.approvalId, approved: true }],
});
result = await generateText({ model, tools, messages: await inboxApprovals(wardrik, options, messages) });
console.log(result.text);
await wardrik.close();
