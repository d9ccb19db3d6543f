// Docs "Errors": branch on a thrown error's code, a closed union, and on a conflict's reason.
import 'reflect-metadata';
import { ConflictError, defineTool, Wardrik, WardrikError, type WardrikErrorCode } from '../../src/index.js';

const fixes: Record<WardrikErrorCode, string> = {
  configuration: 'fix the options or the decorators, then start again',
  usage: 'fix the calling code: the message says what the function takes',
  timeout: 'try again later',
  unavailable: 'the service is down: try again later',
  invalid_arguments: 'fix the changed arguments and approve again',
  invalid_answer: 'answer the item in the shape the message gives',
  store: 'check the database',
  journal_newer: 'upgrade Wardrik to the version that wrote the journal',
  journal_malformed: 'restore the row from a backup',
  conflict: 'see its reason',
  not_found: 'check the id',
  not_permitted: 'ask one of the people the message names to answer',
  closed: 'open a new Wardrik',
  egress_refused: 'that server address is not allowed',
};

try {
  await Wardrik.create({ store: 'memory:', agents: { resultPollMs: 3e9 } });
} catch (error) {
  if (!(error instanceof WardrikError)) throw error;
  console.log(error.code, '->', fixes[error.code]); // configuration -> fix the options …
}

const refund = defineTool({
  name: 'refund',
  description: 'Refunds an order.',
  input: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] },
  run: (args: { orderId: string }) => ({ refunded: args.orderId }),
});
const wardrik = await Wardrik.create({ store: 'memory:', tools: { shop: [refund] } });
await wardrik.runner.run({
  agent: 'support',
  run: 'turn-7',
  call: { id: 'call-1', name: 'shop__refund', arguments: { orderId: 'ord_1001' } },
  policy: [{ match: 'shop/refund', action: 'ask' }],
});
const [item] = await wardrik.inbox.list();
if (item !== undefined) {
  await wardrik.inbox.approve(item.id, { by: 'dana' });
  try {
    await wardrik.inbox.deny(item.id, { reason: 'Too late', by: 'sam' });
  } catch (error) {
    if (!(error instanceof ConflictError)) throw error;
    // The code stays `conflict`; the reason says which one, the data holds the ids involved.
    if (error.is('already_answered')) console.log(`${error.data.item} was ${error.data.status} by ${error.data.by}`);
    else if (error.is('stale_digest')) console.log(`look again: the call's digest is ${error.data.expected}`);
    else console.log(error.reason, error.data);
  }
}
await wardrik.close();
