// docs/durable-runs.md, "Durable runs and recovery": a store, recovery, and answering a call left in doubt.
import 'reflect-metadata';
import { Wardrik } from '../../src/index.js';
import { OrderTools } from '../orders/order-tools.js';

const wardrik = await Wardrik.create({
  toolsets: [OrderTools],
  store: process.env.DATABASE_URL ?? 'sqlite:.wardrik/wardrik.db', // postgres://… when many nodes share runs
  runner: { node: process.env.HOSTNAME ?? 'node-1', leaseMs: 30_000 },
  recoverMs: 60_000,
});

const report = await wardrik.recover(); // also runs at start-up and every recoverMs
console.log(report); // { rerun, inDoubt, restored, skipped, approved, unoffered }

for (const item of await wardrik.inbox.list()) {
  if (item.kind !== 'in_doubt') continue;
  // A person checks whether the call took effect, then says so:
  await wardrik.inbox.answer(item.id, { happened: true, result: { refunded: true } }); // record it, don't run
  // or: await wardrik.inbox.answer(item.id, { happened: false });   // it didn't happen: run it now, once
  // or: await wardrik.inbox.deny(item.id, { reason: 'Refunded by hand' });
}
await wardrik.close();
