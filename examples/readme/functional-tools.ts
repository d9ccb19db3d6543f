// docs/tools.md, "Functional tools": defineTool values, the helpers on them, and callTool without a runner.
import 'reflect-metadata';
import {
  annotate,
  annotation,
  callTool,
  defineTool,
  getPrivate,
  isRepeatable,
  putPrivate,
  Wardrik,
} from '../../src/index.js';

const statuses = new Map([['o1', 'shipped']]);

const orderStatus = defineTool({
  name: 'order_status',
  description: 'Say where an order is.',
  input: {
    type: 'object',
    properties: { order_id: { type: 'string', pattern: '^o' } },
    required: ['order_id'],
    additionalProperties: false,
  },
  annotations: { readOnly: true },
  run: ({ order_id }: { order_id: string }, ctx) => ({
    order: order_id,
    status: statuses.get(order_id) ?? 'unknown',
    askedBy: ctx.agent,
  }),
});

const wardrik = await Wardrik.create({ store: 'memory:', tools: { workers: [orderStatus] } }); // the model sees workers__order_status

const slow = annotate(orderStatus, { timeout: 5_000 }); // a new value; orderStatus is unchanged
annotation(slow, 'timeout', 60_000); // 5000
isRepeatable(slow); // true: read-only or idempotent
const answer = await callTool([orderStatus], { name: 'order_status', arguments: { order_id: 'o1' } }); // checks, then runs

const AUDIT = Symbol('my-audit-package'); // private data is keyed by your own symbol or class
const audited = putPrivate(orderStatus, AUDIT, { owner: 'team-orders' });
getPrivate(audited, AUDIT); // { owner: 'team-orders' }

console.log(
  wardrik.tools()[0]?.name,
  annotation(slow, 'timeout', 60_000),
  isRepeatable(slow),
  answer,
  getPrivate(audited, AUDIT),
);
await wardrik.close();
