import 'reflect-metadata';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { StoreError, Wardrik } from '../../src/index.js';
import { ledgerTools, readLedger } from '../crash/ledger-tools.js';
import { eventually } from '../eventually.js';

/**
 * PostgreSQL restarted under load, for real: the test runs a PostgreSQL server of its own (initdb in a
 * temporary folder, its own port) so that stopping it disturbs nothing else, then stops and starts it
 * while calls are running.
 */
const BIN = `/usr/lib/postgresql/${process.env.WARDRIK_TEST_PG_VERSION ?? '15'}/bin`;
const dir = mkdtempSync(join(tmpdir(), 'wardrik-pg-restart-'));
const data = join(dir, 'data');
const port = 55_000 + Math.floor(Math.random() * 5_000);
const asPostgres = (command: string, args: string[]): string =>
  execFileSync('runuser', ['-u', 'postgres', '--', join(BIN, command), ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
const ctl = (action: 'start' | 'stop'): void => {
  const args =
    action === 'start'
      ? ['-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`, '-l', join(dir, 'log'), '-w']
      : ['-m', 'immediate', '-w'];
  asPostgres('pg_ctl', [action, '-D', data, ...args]);
};

before(() => {
  // PostgreSQL refuses to run as root: the folder belongs to the postgres user the machine has.
  chownSync(dir, Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim()), -1);
  asPostgres('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres']);
  ctl('start');
});

after(() => {
  try {
    ctl('stop');
  } catch {
    // already stopped
  }
  rmSync(dir, { recursive: true, force: true });
});

describe('PostgresStore when PostgreSQL restarts under load', () => {
  it('fails calls with a clear error while it is down, runs none without its journal entry, and resumes when it is back', async (t) => {
    const ledger = join(dir, 'ledger');
    const wardrik = await Wardrik.create({
      store: `postgres://postgres@127.0.0.1:${port}/postgres`,
      tools: { t: ledgerTools(ledger) },
      policy: { rules: [{ match: 't/*', action: 'allow' }] },
      runner: { node: 'node-a', leaseMs: 1_000 },
      recoverMs: Infinity,
    });
    const failures: Error[] = [];
    let sent = 0;
    const worker = async (id: number, stop: () => boolean) => {
      for (let i = 0; !stop(); i++) {
        try {
          await wardrik.runner.run({ agent: 'a', run: `run-${id}-${i}`, call: { id: 'c', name: 't__email' } });
        } catch (error) {
          failures.push(error as Error);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        sent++;
      }
    };
    let down = false;
    let done = false;
    const load = Promise.all(Array.from({ length: 8 }, (_, id) => worker(id, () => done)));
    await eventually('40 calls sent', () => sent >= 40);
    ctl('stop');
    down = true;
    await eventually('a failed call from each of the 8 workers', () => failures.length >= 8);
    ctl('start');
    const failedWhileDown = failures.length;
    const sentBeforeBack = sent;
    // PostgreSQL takes its time to start again on a loaded machine.
    await eventually('40 more calls sent once PostgreSQL is back', () => sent >= sentBeforeBack + 40, {
      timeoutMs: 60_000,
    });
    done = true;
    await load;
    assert.ok(down);

    for (const failure of failures) {
      assert.ok(failure instanceof StoreError, `expected a StoreError, got ${failure.name}: ${failure.message}`);
      assert.match(
        failure.message,
        new RegExp(`127\\.0\\.0\\.1:${port}`),
        'the error names the database it could not reach',
      );
      // It names the call and says whether its tool ran.
      assert.match(
        failure.message,
        /^Call "c" of run "run-\d+-\d+" \(t\/email\) (did not run: could not|ran, but Wardrik could not)/,
      );
    }
    assert.ok(failedWhileDown >= 8);

    // Every effect in the ledger has its call in the journal: nothing ran without its entry.
    const store = wardrik.container.resolve((await import('../../src/index.js')).Tokens.Store);
    const effects = readLedger(ledger).map((line) => line.split(' ')[1]!);
    for (const key of effects) {
      const [run, call] = key.split(':') as [string, string];
      assert.notEqual(await store.getCall(run, call), undefined, `the effect of ${key} has no journal entry`);
    }
    // Calls cut off between their effect and their answer are not lost: recovery parks them in doubt.
    await wardrik.recover();
    assert.deepEqual(await store.listCalls({ state: 'started' }), []);
    for (const key of effects) {
      const [run, call] = key.split(':') as [string, string];
      const record = await store.getCall(run, call);
      const settled =
        record?.state === 'succeeded' ||
        (record?.state === 'parked' && record.answer?.status === 'parked' && record.answer.kind === 'in_doubt');
      assert.ok(settled, `${key} is ${record?.state}: every effect is answered or waits for a person`);
    }
    assert.equal(new Set(effects).size, effects.length, 'no email was sent twice');
    const succeeded = (await store.listCalls({ state: 'succeeded' })).length;
    assert.ok(succeeded > 40, 'work resumed after the restart');
    t.diagnostic(
      `${sent} calls sent, ${failedWhileDown} failed while down, ${succeeded} answered, ${(await wardrik.inbox.list()).length} in doubt`,
    );
    await wardrik.close();
  });
});
