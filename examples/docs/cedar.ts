// docs/policies-cedar.md: policies written in Cedar, beside the rules.
import 'reflect-metadata';
import { Wardrik } from '../../src/index.js';
import { OrderTools } from '../orders/order-tools.js';

const ORDERS_POLICIES = `
@id("support-small-refunds")
permit (principal == Wardrik::Agent::"support", action == Wardrik::Action::"orders/refund_order", resource)
when { context.arguments has amountCents && context.arguments.amountCents <= 10000 };

@id("reads")
permit (principal, action in Wardrik::Action::"orders", resource) when { context.annotations.readOnly };
`;

const wardrik = await Wardrik.create({
  store: 'memory:',
  toolsets: [OrderTools],
  policy: {
    cedar: { policies: ORDERS_POLICIES }, // Cedar text, or the path of a .cedar file
    rules: [{ match: 'orders/find_order', action: 'ask', when: { labels: ['pii'] } }], // optional, beside Cedar
  },
});

const answer = await wardrik.runner.run({
  agent: 'support',
  run: 'run-1',
  call: { id: 'c1', name: 'orders__refund_order', arguments: { orderId: 'ord_1001', amountCents: 1500 } },
});
console.log(answer.status); // ok: "support-small-refunds" permits it
await wardrik.close();
