// A Wardrik node under load for the crash load test: it recovers what earlier nodes left (recovering
// again every RECOVER_MS, shorter than a call), sends CALLS mixed calls at once, and once KILL_AFTER
// of them have answered prints CRASH-POINT, so the test kills it with SIGKILL while the rest are in
// flight. Arguments come from the environment.
import 'reflect-metadata';
import { Wardrik } from '../../src/index.js';
import { loadCall } from './load-calls.js';
import { ledgerTools } from './ledger-tools.js';

const { STORE_URL, LEDGER, NODE, ROUND, CALLS, KILL_AFTER, RECOVER_MS, LEASE_MS } = process.env as Record<
  string,
  string
>;
const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const wardrik = await Wardrik.create({
  store: STORE_URL!,
  // Each effect comes after a pause, so that a kill finds calls before and after their effect.
  tools: {
    t: ledgerTools(LEDGER!, () => pause(Math.random() * 40), {
      beforeEffect: () => pause(Math.random() * 80),
      attempts: true,
    }),
  },
  policy: { rules: [{ match: 't/*', action: 'allow' }] },
  runner: { node: NODE!, leaseMs: Number(LEASE_MS) },
  recoverMs: Number(RECOVER_MS),
});
let answered = 0;
const killHere = (): void => {
  if (++answered === Number(KILL_AFTER)) process.stdout.write('CRASH-POINT\n');
};
await Promise.all(
  Array.from({ length: Number(CALLS) }, (_, i) =>
    wardrik.runner.run(loadCall(Number(ROUND), i)).then(killHere, killHere),
  ),
);
await new Promise(() => {}); // the kill comes before the last calls answer
