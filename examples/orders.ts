// Runs the orders toolset through Wardrik without a model: a read-only lookup runs at once; a refund
// waits for a person, who approves it here through the inbox.
import 'reflect-metadata';
import { Wardrik, answerText } from '../src/index.js';
import { OrderTools } from './orders/order-tools.js';

const wardrik = await Wardrik.create({ toolsets: [OrderTools], store: 'memory:' });
wardrik.events$.subscribe((event) => {
  const { type, time: _time, ...rest } = event;
  console.log(`  event ${type}`, JSON.stringify(rest));
});

console.log('Tools a model would see:');
for (const tool of wardrik.tools()) console.log(`  ${tool.name}: ${tool.description}`);

const run = 'run-1';
console.log('\nThe agent looks up pi_123:');
const found = await wardrik.runner.run({
  agent: 'support',
  run,
  call: { id: 'c1', name: 'orders__find_order', arguments: { payment_intent: 'pi_123' } },
});
console.log(`  answer: ${answerText(found)}`);

console.log('\nThe agent sends a bad argument, and reads why:');
const bad = await wardrik.runner.run({
  agent: 'support',
  run,
  call: { id: 'c2', name: 'orders__find_order', arguments: { payment_intent: 'ch_1' } },
});
console.log(`  answer: ${answerText(bad)}`);

console.log('\nThe agent asks for a refund; it waits for a person:');
const parked = await wardrik.runner.run({
  agent: 'support',
  run,
  call: { id: 'c3', name: 'orders__refund_order', arguments: { orderId: 'ord_1001' } },
});
console.log(`  answer: ${answerText(parked)}`);

const [item] = await wardrik.inbox.list();
if (item !== undefined) {
  console.log(`\nA person approves inbox item ${item.id} (${item.tool} ${JSON.stringify(item.arguments)}):`);
  const refunded = await wardrik.inbox.approve(item.id, { by: 'dana@example.com', digest: item.digest });
  console.log(`  answer: ${answerText(refunded)}`);
}
await wardrik.close();
