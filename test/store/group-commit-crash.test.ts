import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { openStore } from '../../src/store/open-store.js';
import type { CallRecord, StepRecord, Store } from '../../src/store/store.js';
import { scratchStores } from '../crash/scratch-stores.js';

/**
 * Group commit and SIGKILL: a child process journals 50 runs at once (their batches share commits) and
 * is killed mid-load. Every batch it was told is durable must be there after the kill, whole, and every
 * batch is there whole or not at all.
 */
const WRITER = fileURLToPath(new URL('./journal-writer-node.js', import.meta.url));
const RUNS = 50;
const { stores } = scratchStores('group_crash');

/** Runs the writer until it has acknowledged `acks` batches, kills it with SIGKILL, and returns every line it printed. */
function killAfter(url: string, acks: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WRITER], {
      env: { ...process.env, STORE_URL: url, RUNS: String(RUNS) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let errors = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.split('\n').length > acks) child.kill('SIGKILL');
    });
    child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    child.on('close', (code, signal) =>
      signal === 'SIGKILL'
        ? resolve(output.split('\n').filter((line) => line !== ''))
        : reject(new Error(`the writer exited (${code}) before it was killed:\n${errors}`)),
    );
  });
}

/**
 * The run's calls and steps once they stop changing: PostgreSQL finishes a statement the killed writer had
 * sent (and commits it, whole) a moment after the kill, and a commit landing between the two reads would
 * look like a batch cut in two.
 */
async function settled(store: Store, run: string): Promise<{ calls: CallRecord[]; steps: StepRecord[] }> {
  let last = '';
  for (;;) {
    const calls = await store.listCalls({ run });
    const steps = await store.listSteps(run);
    const seen = JSON.stringify([calls.map((call) => [call.call, call.state]), steps.map((step) => step.index)]);
    if (seen === last) return { calls, steps };
    last = seen;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

for (const [name, storeUrl] of stores) {
  describe(`Journal batches sharing commits, the writer killed with SIGKILL, on ${name}`, () => {
    it('loses no batch the store acknowledged, and keeps every batch whole or not at all', async () => {
      const url = storeUrl();
      const lines = await killAfter(url, 1_500 + Math.floor(Math.random() * 1_000));
      const store = await openStore(url);
      try {
        const acked = new Map<string, { started: number; answered: number }>();
        for (const line of lines) {
          const [what, run, i] = line.split(' ') as ['started' | 'answered', string, string];
          const seen = acked.get(run) ?? { started: -1, answered: -1 };
          seen[what] = Math.max(seen[what], Number(i));
          acked.set(run, seen);
        }
        assert.ok(acked.size > RUNS / 2, `most runs wrote before the kill (${acked.size})`);
        for (let n = 0; n < RUNS; n++) {
          const run = `run-${n}`;
          const { calls, steps } = await settled(store, run);
          const { started, answered } = acked.get(run) ?? { started: -1, answered: -1 };
          // Steps 2i (model) and 2i+1 (tools) go with call i's `started` and its answer.
          const answeredCalls = calls.filter((call) => call.state === 'succeeded').length;
          assert.ok(
            calls.length >= started + 1,
            `${run}: ${calls.length} calls journaled, ${started + 1} acknowledged`,
          );
          assert.ok(
            answeredCalls >= answered + 1,
            `${run}: ${answeredCalls} answers journaled, ${answered + 1} acknowledged`,
          );
          assert.equal(steps.length, calls.length + answeredCalls, `${run}: each step went with its call's write`);
          calls.forEach((call, i) => {
            assert.equal(call.call, `c${i}`);
            assert.equal(
              call.state,
              i < calls.length - 1 ? 'succeeded' : call.state,
              `${run}: only the last call may be unanswered`,
            );
          });
          steps.forEach((step, i) => assert.equal(step.index, i));
        }
      } finally {
        await store.close();
      }
    });
  });
}
