// docs/runner-and-policy.md, "Policy and approvals": rules, a decide hook, and a person answering parked calls.
import 'reflect-metadata';
import { answerText, ConflictError, Wardrik } from '../../src/index.js';
import { OrderTools } from '../orders/order-tools.js';

const wardrik = await Wardrik.create({
  store: 'memory:',
  toolsets: [OrderTools],
  policy: {
    rules: [
      { match: 'orders/refund_order', action: 'allow', when: { annotations: { idempotent: true } } },
      { match: 'files/*', action: 'deny', when: { resources: ['/etc/**'] } },
      { match: '*/*', action: 'ask', when: { labels: ['pii'] } },
    ],
    decide: (input) => (input.agent === 'nightly-batch' ? 'deny' : undefined), // optional hook
  },
});

const parked = await wardrik.runner.run({
  agent: 'support',
  run: 'turn-42',
  call: { id: 'call-1', name: 'orders__refund_order', arguments: { orderId: 'ord_1001' } },
  policy: [{ match: 'orders/refund_order', action: 'ask' }], // this agent's own rule: ask first
});
console.log(answerText(parked));

const [item] = await wardrik.inbox.list(); // pending: id, kind, tool, arguments, digest, labels, reason …
if (item !== undefined) {
  await wardrik.inbox.approve(item.id, { by: 'dana@example.com', digest: item.digest }); // runs it, once
  try {
    await wardrik.inbox.deny(item.id, { reason: 'Refunds over 30 days need finance', by: 'dana' });
  } catch (error) {
    if (error instanceof ConflictError) console.log(error.message); // already approved by dana; nothing ran
  }
}
await wardrik.close();
