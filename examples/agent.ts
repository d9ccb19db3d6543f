// An agent over the orders toolset. Offline it plays a scripted model (and says so); with
// ANTHROPIC_API_KEY set it asks claude-haiku-4-5. The refund waits for a person, approved here.
import 'reflect-metadata';
import { Wardrik, type LanguageModel } from '../src/index.js';
import { scriptedModel } from '../src/testing/index.js';
import { OrderTools } from './orders/order-tools.js';

const live = (process.env.ANTHROPIC_API_KEY ?? '') !== '';
const model: string | LanguageModel = live
  ? 'anthropic:claude-haiku-4-5'
  : scriptedModel(
      [
        {
          text: 'Let me find that order.',
          toolCalls: [{ name: 'orders__find_order', arguments: { payment_intent: 'pi_123' } }],
        },
        {
          text: 'It is ord_1001; refunding it.',
          toolCalls: [{ name: 'orders__refund_order', arguments: { orderId: 'ord_1001' } }],
        },
        (call) => ({ text: `Done: ${call.lastToolResult ?? 'no answer'}.` }),
      ],
      { name: 'orders-demo', usage: { inputTokens: 800, outputTokens: 60 } },
    );

console.log(
  live
    ? 'Model: anthropic:claude-haiku-4-5 (ANTHROPIC_API_KEY is set).'
    : 'Model: a SCRIPTED model (offline demo; set ANTHROPIC_API_KEY to use Claude). Its answers are canned and start with [scripted].',
);

const wardrik = await Wardrik.create({ toolsets: [OrderTools], store: 'memory:' });
wardrik.costs$.subscribe(({ usd, source, totalUsd }) =>
  console.log(`  cost: $${usd.toFixed(6)} (${source}), agent total $${totalUsd.toFixed(6)}`),
);
wardrik.events$.subscribe((event) => {
  if (
    event.type.startsWith('run.') ||
    event.type === 'model.called' ||
    event.type === 'tool.succeeded' ||
    event.type === 'tool.parked'
  ) {
    console.log(`  event ${event.type}${'tool' in event ? ` ${event.tool}` : ''}`);
  }
});

const agent = wardrik.startAgent({
  id: 'support',
  model,
  instructions: 'You help customers with their orders. Refund when asked; be brief.',
  tools: ['orders/*'],
  budgetUsd: 0.5,
  // Price the scripted model like Claude Haiku, so the demo shows spend.
  ...(live ? {} : { price: { inputPerMTok: 1, outputPerMTok: 5 } }),
});

console.log('\nUser: Where is the order for pi_123? Please refund it.');
let turn = await agent.send('Where is the order for pi_123? Please refund it.');
while (turn.status === 'parked') {
  const next = agent.result(turn.run); // waits for the turn's next stop
  for (const call of turn.parked) {
    console.log(`\nThe turn waits for a person: ${call.tool} (${call.reason}). Dana approves it.`);
    await wardrik.inbox.approve(call.inboxId, { by: 'dana@example.com' });
  }
  turn = await next;
}
console.log(`\nAgent (${turn.status}, ${turn.steps} model steps, $${turn.spentUsd.toFixed(6)}): ${turn.text}`);
if (turn.error !== undefined) console.log(`  error: ${turn.error}`);
await wardrik.close();
