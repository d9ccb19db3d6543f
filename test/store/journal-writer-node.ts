import { writeSync } from 'node:fs';
import { openStore } from '../../src/store/open-store.js';
import type { CallRecord } from '../../src/store/store.js';

// A child process for group-commit-crash.test.ts: RUNS runs at once, each journaling step after step
// through writeJournal, two batches a step as an agent's tool call does (the model step with its call
// `started`, then the call's answer with the tools step). Prints a line for each batch only once its
// promise resolved, i.e. once the store says it is durable; the test kills this process with SIGKILL.

const store = await openStore(process.env.STORE_URL!);
const runs = Number(process.env.RUNS);

async function drive(run: string): Promise<never> {
  for (let i = 0; ; i++) {
    const call: CallRecord = {
      run,
      call: `c${i}`,
      agent: 'crash',
      tool: 't/x',
      arguments: { i },
      idempotencyKey: `${run}:c${i}`,
      state: 'started',
      attempt: 1,
      updatedAt: i,
    };
    const first = await store.writeJournal([
      { step: { run, index: 2 * i, data: { kind: 'model', i }, createdAt: i } },
      { call, expected: undefined },
    ]);
    if (!first.every(Boolean)) throw new Error(`${run} step ${i}: a write was refused`);
    writeSync(1, `started ${run} ${i}\n`);
    const answer = { status: 'ok' as const, output: i, labels: [] };
    const second = await store.writeJournal([
      { call: { ...call, state: 'succeeded', answer, updatedAt: i + 0.5 }, expected: 'started' },
      { step: { run, index: 2 * i + 1, data: { kind: 'tools', i }, createdAt: i } },
    ]);
    if (!second.every(Boolean)) throw new Error(`${run} step ${i}: a write was refused`);
    writeSync(1, `answered ${run} ${i}\n`);
  }
}

await Promise.all(Array.from({ length: runs }, (_, n) => drive(`run-${n}`)));
