// docs/security.md, "Prompt injection": confidential labels, labels across turns, and approvals a person
// can change, scope to a run, and let expire.
import 'reflect-metadata';
import { answerText, Wardrik } from '../../src/index.js';
import { OrderTools } from '../orders/order-tools.js';
import { CustomerTools, WebTools } from '../support/support-tools.js';

const wardrik = await Wardrik.create({
  store: 'memory:',
  toolsets: [OrderTools, CustomerTools, WebTools],
  policy: {
    rules: [{ match: 'orders/refund_order', action: 'ask' }],
    confidential: ['pii'], // besides 'confidential' itself
    approvalTtlMs: 4 * 3_600_000, // unanswered for 4 hours: denied, and the model is told why
    escalateAfterMs: 30 * 60_000, // unanswered for 30 minutes: an inbox.escalated event and webhook message
  },
});

const call = (id: string, args: object) =>
  wardrik.runner.run({ agent: 'support', run: 'turn-7', call: { id, name: 'orders__refund_order', arguments: args } });

const parked = await call('call-1', { orderId: 'ord_1001', amountCents: 4999 });
const item = parked.status === 'parked' ? await wardrik.inbox.get(parked.inboxId!) : undefined;
if (item !== undefined) {
  // Approve a smaller refund than the model asked for, and let later refunds of the same order in this
  // run go without asking. The new arguments are checked against the tool's schema first.
  const answer = await wardrik.inbox.approve(item.id, {
    by: 'dana@example.com',
    digest: item.digest,
    arguments: { orderId: 'ord_1001', amountCents: 1500 },
    scope: 'run',
    allowIf: ['orderId'],
  });
  console.log(answerText(answer)); // A person (dana@example.com) changed this call's arguments before approving it: …
  console.log((await call('call-2', { orderId: 'ord_1001', amountCents: 500 })).status); // ok: approved for the rest of the run
  console.log((await call('call-3', { orderId: 'ord_2002', amountCents: 500 })).status); // parked: another order asks
}
await wardrik.close();
