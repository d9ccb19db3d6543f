// docs/approvals.md: who may answer an approval, no self-approval, four eyes.
import 'reflect-metadata';
import { answerText, NotPermittedError, Wardrik } from '../../src/index.js';
import { scriptedModel } from '../../src/testing/index.js';
import { OrderTools } from '../orders/order-tools.js';

const wardrik = await Wardrik.create({
  store: 'memory:',
  toolsets: [OrderTools],
  policy: {
    rules: [
      // Refunds need two finance leads, neither of them the person the agent acts for.
      { match: 'orders/refund_order', action: 'ask', approvers: ['finance-leads'], quorum: 2 },
    ],
    // Or decide in code: an ask that names who may answer it.
    decide: (input) => (input.labels.includes('pii') ? { action: 'ask', approvers: ['privacy-officers'] } : undefined),
  },
});

const agent = wardrik.startAgent({
  id: 'support',
  onBehalfOf: 'ana@example.com', // the person the agent acts for: the requester of what it asks
  model: scriptedModel([
    { toolCalls: [{ name: 'orders__refund_order', arguments: { orderId: 'ord_1001', amountCents: 1500 } }] },
    { text: 'The refund is done.' },
  ]),
  tools: ['orders/*'],
});
const turn = await agent.send('Refund $15 on ord_1001, please.');

const item = await wardrik.inbox.get(turn.parked[0]!.inboxId!);
if (item !== undefined) {
  try {
    await wardrik.inbox.approve(item.id, { by: 'ana@example.com', groups: ['finance-leads'], digest: item.digest });
  } catch (error) {
    if (error instanceof NotPermittedError) console.log(error.message); // ana asked for this call …
  }
  const first = await wardrik.inbox.approve(item.id, { by: 'bo', groups: ['finance-leads'], digest: item.digest });
  console.log(answerText(first)); // … bo approved this call (1 of 2); it runs once 1 more …
  const second = await wardrik.inbox.approve(item.id, { by: 'cy', groups: ['finance-leads'], digest: item.digest });
  console.log(answerText(second)); // the refund's answer: it ran, once
}
console.log((await agent.result(turn.run)).text);
await wardrik.close();
