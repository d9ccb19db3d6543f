// docs/agents.md: an agent over a real model, the loop that waits for a person, and the scripted model.
import 'reflect-metadata';
import { Wardrik } from '../../src/index.js';
import { scriptedModel } from '../../src/testing/index.js';
import { OrderTools } from '../orders/order-tools.js';

const wardrik = await Wardrik.create({
  toolsets: [OrderTools],
  store: 'memory:',
  agents: { prices: { 'anthropic:claude-haiku-4-5': { inputPerMTok: 1, outputPerMTok: 5 } } },
});

const offline = scriptedModel([
  { toolCalls: [{ name: 'orders__find_order', arguments: { payment_intent: 'pi_123' } }] },
  (call) => ({ text: `Found: ${call.lastToolResult}` }),
]);

const agent = wardrik.startAgent({
  id: 'support', // stable: turns, spend and the conversation are kept under it
  model: process.env.ANTHROPIC_API_KEY ? 'anthropic:claude-haiku-4-5' : offline,
  instructions: 'You help customers with their orders.',
  tools: ['orders/*'],
  policy: [{ match: 'orders/refund_order', action: 'ask' }],
  budgetUsd: 2, // models and tools together
  maxSteps: 20,
});

let turn = await agent.send('Where is the order for pi_123?');
// { run, status: 'done' | 'parked' | 'failed' | 'budget_spent', text, parked, spentUsd, steps, error? }
while (turn.status === 'parked') {
  const next = agent.result(turn.run); // the turn's next stop
  for (const call of turn.parked) await wardrik.inbox.approve(call.inboxId, { by: 'dana' });
  turn = await next;
}
console.log(turn.status, turn.text, turn.spentUsd);
await wardrik.close();
