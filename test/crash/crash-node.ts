// A Wardrik node for crash tests: runs one call and stops dead at a fault point, printing
// CRASH-POINT so the test kills it with SIGKILL right there. Arguments come from the environment.
import 'reflect-metadata';
import { openStore, Wardrik, type CallRecord, type CallState, type JournalWrite, type Store } from '../../src/index.js';
import { stopAtCrashPoint } from './kill-at-crash-point.js';
import { ledgerTools } from './ledger-tools.js';

const { STORE_URL, LEDGER, TOOL, POINT, RUN, CALL, NODE } = process.env as Record<string, string>;

/** The same stop for the synchronous journal: the thread waits right there until it is killed. */
function stopHereNow(): never {
  process.stdout.write('CRASH-POINT\n'); // synchronous on a pipe
  for (;;) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
}

const real = await openStore(STORE_URL!);
// Both ways a store journals a call stop at the fault point: its promises (`writeJournal`), and its `sync`
// (SQLite's, which the runner uses when it is there).
const sync = real.sync;
const store = new Proxy(real, {
  get(target, key, receiver) {
    if (key === 'sync') {
      return (
        sync && {
          getLabels: sync.getLabels,
          writeCall: (record: CallRecord, expected: CallState | undefined) => {
            if (record.state === 'started' && POINT === 'before-started') stopHereNow();
            const written = sync.writeCall(record, expected);
            if (record.state === 'started' && POINT === 'after-started') stopHereNow();
            return written;
          },
        }
      );
    }
    if (key !== 'writeJournal') {
      const value = Reflect.get(target, key, receiver) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    }
    // A call's write alone (`writeCall`, as the runner journals a call without `sync`).
    return async (writes: readonly JournalWrite[]) => {
      const [only] = writes;
      const starting = writes.length === 1 && only !== undefined && 'call' in only && only.call.state === 'started';
      if (starting && POINT === 'before-started') await stopAtCrashPoint();
      const written = await target.writeJournal(writes);
      if (starting && POINT === 'after-started') await stopAtCrashPoint();
      return written;
    };
  },
}) as Store;

const wardrik = await Wardrik.create({
  store,
  tools: { t: ledgerTools(LEDGER!, POINT === 'after-effect' ? stopAtCrashPoint : undefined) },
  policy: { rules: [{ match: 't/*', action: 'allow' }] },
  runner: { node: NODE ?? 'node-a', leaseMs: 400 },
  recoverMs: Infinity,
});
process.stdout.write('READY\n');
await wardrik.runner.run({ agent: 'a', run: RUN ?? 'run-1', call: { id: CALL ?? 'c1', name: `t__${TOOL}` } });
process.stdout.write('FINISHED\n');
await wardrik.close();
