import 'reflect-metadata';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { openStore, Wardrik, type CallRecord, type Store, type ToolAnswer } from '../../src/index.js';
import { killAtCrashPoint } from './kill-at-crash-point.js';
import { ledgerTools, readLedger } from './ledger-tools.js';
import { loadCall, TOOLS } from './load-calls.js';
import { lapseLeases, scratchStores } from './scratch-stores.js';
import { eventually } from '../eventually.js';

/**
 * The crash guarantees under load (issue 13, point 7): node after node sends a few hundred mixed calls
 * at once, recovers what the node before left (every 40 ms, shorter than a call), and is killed with
 * SIGKILL mid-load. Then a last node recovers the rest, and every call is accounted for.
 */
const NODE_SCRIPT = fileURLToPath(new URL('./load-node.js', import.meta.url));
const ROUNDS = 5;
const CALLS = 150;
const LEASE_MS = 300;
const { dir, stores } = scratchStores('load');

/** How many times each ledger line occurs, for the lines that occur more than once. */
function repeated(lines: readonly string[]): string[] {
  const seen = new Map<string, number>();
  for (const line of lines) seen.set(line, (seen.get(line) ?? 0) + 1);
  return [...seen].filter(([, n]) => n > 1).map(([line, n]) => `${line} ×${n}`);
}

for (const [storeName, storeUrl] of stores) {
  describe(`${ROUNDS} nodes killed with SIGKILL under load, on ${storeName}`, () => {
    it(`loses no call of ${ROUNDS * CALLS}, runs no email twice, parks every in-flight email in doubt and runs nothing twice in recovery`, async (t) => {
      const started = performance.now();
      const url = storeUrl();
      const ledger = join(dir, `${randomBytes(4).toString('hex')}.ledger`);
      for (let round = 0; round < ROUNDS; round++) {
        await killAtCrashPoint(NODE_SCRIPT, {
          STORE_URL: url,
          LEDGER: ledger,
          NODE: `node-${round}`,
          ROUND: String(round),
          CALLS: String(CALLS),
          // Killed once a fifth to three fifths of its calls answered: the others are in flight.
          KILL_AFTER: String(Math.floor(CALLS * (0.2 + Math.random() * 0.4))),
          RECOVER_MS: '40',
          LEASE_MS: String(LEASE_MS),
        });
      }

      // What the last kill left in flight, before anyone recovers it.
      const inspect: Store = await openStore(url);
      const inFlight = await inspect.listCalls({ state: 'started' });
      await lapseLeases(url); // the dead node's leases lapse
      const last = await Wardrik.create({
        store: url,
        tools: { t: ledgerTools(ledger, async () => {}, { attempts: true }) },
        policy: { rules: [{ match: 't/*', action: 'allow' }] },
        runner: { node: 'node-last', leaseMs: LEASE_MS },
        recoverMs: Infinity,
      });
      try {
        await eventually('recovery to finish every call left in flight', async () => {
          await last.recover();
          return (await inspect.listCalls({ state: 'started' })).length === 0;
        });
        assert.deepEqual(await inspect.listCalls({ state: 'started' }), [], 'no call is left in flight');

        // Every in-flight call was finished the way its tool allows.
        const final = async (record: CallRecord) => (await inspect.getCall(record.run, record.call))!;
        for (const record of inFlight) {
          const now = await final(record);
          if (record.tool === 't/email')
            assert.deepEqual(
              [now.state, now.answer?.status === 'parked' && now.answer.kind],
              ['parked', 'in_doubt'],
              `${record.run}/${record.call}`,
            );
          else assert.equal(now.state, 'succeeded', `${record.run}/${record.call} (${record.tool})`);
        }

        // 0 calls lost: sent again, each call answers, from the journal or (never journaled) by running now.
        const answers: ToolAnswer[] = [];
        for (let round = 0; round < ROUNDS; round++) {
          answers.push(
            ...(await Promise.all(Array.from({ length: CALLS }, (_, i) => last.runner.run(loadCall(round, i))))),
          );
        }
        const lost = answers.filter(
          (answer, n) =>
            !(answer.status === 'ok' || (answer.status === 'parked' && TOOLS[(n % CALLS) % TOOLS.length] === 'email')),
        );
        assert.deepEqual(lost, [], 'every call answers');
        const inDoubt = (await last.inbox.list()).filter((item) => item.kind === 'in_doubt');
        for (const item of inDoubt) assert.equal(item.tool, 't/email', 'only calls not safe to repeat wait in doubt');

        const lines = readLedger(ledger);
        const emails = lines.filter((line) => line.startsWith('email ')).map((line) => line.split(' ')[1]!);
        assert.deepEqual(repeated(emails), [], 'no email was sent twice');
        // Recovery takes a call over with the next attempt, through a compare-and-set on it: two runs
        // of one attempt would mean two recoveries ran it.
        assert.deepEqual(repeated(lines), [], 'no attempt of a call ran twice');
        const rerun = lines.filter((line) => Number(line.split(' ')[2]) > 1).length;
        t.diagnostic(
          `${storeName}: ${ROUNDS} kills, ${ROUNDS * CALLS} calls, ${inFlight.length} in flight at the last kill, ` +
            `${rerun} attempts run again by recovery, ${inDoubt.length} emails in doubt, ${emails.length} emails sent, ` +
            `${Math.round(performance.now() - started)} ms`,
        );
      } finally {
        await last.close();
        await inspect.close();
      }
    });
  });
}
