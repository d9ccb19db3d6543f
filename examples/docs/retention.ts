// docs/retention.md: how long finished runs are kept, and pruning by hand.
import 'reflect-metadata';
import { Wardrik } from '../../src/index.js';
import { OrderTools } from '../orders/order-tools.js';

const DAY = 24 * 60 * 60 * 1000;

const wardrik = await Wardrik.create({
  toolsets: [OrderTools],
  store: 'sqlite:.wardrik/wardrik.db',
  // Finished runs go 7 days after their last write (30 days unless set); a pass every 10 minutes.
  retention: { finishedAfterMs: 7 * DAY, everyMs: 10 * 60 * 1000 },
});

// What a pass would delete now if the limit were one day, without deleting anything:
const wouldGo = await wardrik.prune({ olderThanMs: DAY, dryRun: true });
console.log(wouldGo); // { runs, turns, steps, calls, inbox, labels, leases, holds }

// Delete them now, in batches of 100 runs; parked and in-doubt runs stay.
await wardrik.prune({ olderThanMs: DAY });
await wardrik.close();
