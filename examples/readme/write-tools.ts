// docs/tools.md, "Write tools": wardrik.tool() with Zod arguments, as the SDK's "Write tools" page writes them.
import 'reflect-metadata';
import { IsEmail } from 'class-validator';
import { z } from 'zod';
import { Describe, Wardrik } from '../../src/index.js';
import { scriptedModel } from '../../src/testing/index.js';

// Stand-ins for your application's data helpers and a paid API.
interface Order {
  readonly id: string;
  readonly status: string;
  readonly agent: string;
}
const known: Order[] = [{ id: 'ord_1234', status: 'shipped', agent: 'support' }];
const orders = {
  byPaymentIntent: (paymentIntent: string) => ({
    ...known[0]!,
    paymentIntent,
    items: ['mug'],
    address: 'Lisbon',
    dates: { paid: '2026-11-30' },
  }),
  find: async (id: string) => known.find((order) => order.id === id),
};
const db = { orders: { where: ({ agent }: { agent: string }) => known.filter((order) => order.agent === agent) } };
const enrich = { lookup: async (email: string) => ({ email, company: 'Acme' }) };
const stripe = {
  refunds: {
    create: async (params: { payment_intent: string }, options: { idempotencyKey: string }) => ({
      id: 're_1',
      ...params,
      key: options.idempotencyKey,
    }),
  },
};

const wardrik = await Wardrik.create({
  store: 'memory:',
  policy: { rules: [{ match: 'workers/refund_order', action: 'ask' }] },
});

wardrik.tool({
  name: 'find_order',
  description: 'Find the order associated with a Stripe payment intent, including items, address, and dates.',
  input: z.object({ payment_intent: z.string().describe('Stripe payment intent ID, such as pi_123') }),
  readOnly: true,
  run: ({ payment_intent }) => orders.byPaymentIntent(payment_intent),
});

wardrik.tool({
  name: 'order_status',
  description: 'Say where an order is.',
  input: z.object({ order_id: z.string().describe('Order ID, such as ord_1234') }),
  readOnly: true,
  run: async ({ order_id }) => {
    const order = await orders.find(order_id);
    if (!order) throw new Error(`No order ${order_id}. Order IDs look like ord_1234.`);
    return { id: order.id, status: order.status };
  },
});

wardrik.tool({
  name: 'my_orders',
  description: "List the calling agent's orders.",
  readOnly: true,
  run: (_args, { agent }) => db.orders.where({ agent }),
});

wardrik.tool({
  name: 'enrich_contact',
  description: 'Find the company of an email address.',
  input: z.object({ email: z.email() }),
  readOnly: true,
  run: async ({ email }, { cost }) => {
    const found = await enrich.lookup(email);
    cost(0.01);
    return found;
  },
});

wardrik.tool({
  name: 'refund_order',
  description: 'Refund an order in full.',
  input: z.object({ orderId: z.string() }),
  idempotent: true,
  run: ({ orderId }, { idempotencyKey }) => stripe.refunds.create({ payment_intent: orderId }, { idempotencyKey }),
});

wardrik.tool({
  toolset: 'billing', // the model sees billing__invoice; a policy says billing/invoice
  name: 'invoice',
  title: 'Invoice',
  description: 'Fetch an invoice as text.',
  input: z.object({ invoice_id: z.string().regex(/^in_/) }),
  readOnly: true,
  run: async ({ invoice_id }, { signal }) => (await fetch(`https://billing.example/${invoice_id}`, { signal })).text(),
});

class CustomerArgs {
  @Describe('The email address the customer signed up with')
  @IsEmail()
  email!: string;
}

wardrik.tool({
  name: 'find_customer',
  description: 'Find a customer by email address.',
  input: CustomerArgs, // a class-validator DTO, checked as for @Tool methods
  readOnly: true,
  run: ({ email }) => ({ email, customer: 'cus_1' }),
});

const offline = scriptedModel([
  { toolCalls: [{ name: 'workers__find_order', arguments: { payment_intent: 'pi_123' } }] },
  (call) => ({ text: `Found: ${call.lastToolResult}` }),
]);
const agent = wardrik.startAgent({
  id: 'support',
  model: process.env.ANTHROPIC_API_KEY ? 'anthropic:claude-haiku-4-5' : offline,
  tools: ['workers/*'], // the model sees workers__find_order, workers__refund_order …
  budgetUsd: 2,
});
const turn = await agent.send('Where is the order for pi_123?');

console.log(
  wardrik.tools(['workers/*']).map((tool) => tool.name),
  turn.status,
  turn.text,
);
await wardrik.close();
