import 'reflect-metadata';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Wardrik, type ToolAnswer } from '../../src/index.js';
import { killAtCrashPoint } from './kill-at-crash-point.js';
import { ledgerTools, readLedger } from './ledger-tools.js';
import { lapseLeases, scratchStores } from './scratch-stores.js';
import { eventually } from '../eventually.js';

/**
 * Real crashes: a child process runs one call against a real store and is killed with SIGKILL at a
 * fault point; then a new node opens the same store and recovers. Effects are counted in a ledger
 * file outside the store.
 */
const NODE_SCRIPT = fileURLToPath(new URL('./crash-node.js', import.meta.url));
const { dir, stores } = scratchStores('crash');

type Point = 'before-started' | 'after-started' | 'after-effect';

function crashAt(env: Record<string, string>): Promise<void> {
  return killAtCrashPoint(NODE_SCRIPT, env);
}

async function restart(storeUrl: string, ledger: string, node = 'node-b'): Promise<Wardrik> {
  return Wardrik.create({
    store: storeUrl,
    tools: { t: ledgerTools(ledger) },
    policy: { rules: [{ match: 't/*', action: 'allow' }] },
    runner: { node, leaseMs: 400 },
    recoverMs: Infinity,
  });
}

const send = (wardrik: Wardrik, tool: string): Promise<ToolAnswer> =>
  wardrik.runner.run({ agent: 'a', run: 'run-1', call: { id: 'c1', name: `t__${tool}` } });

/** The effects the ledger holds for a tool. */
const effects = (ledger: string, tool: string): number =>
  readLedger(ledger).filter((line) => line.startsWith(`${tool} `)).length;

for (const [storeName, storeUrl] of stores) {
  describe(`a node killed with SIGKILL, on ${storeName}`, () => {
    const scenario = async (tool: string, point: Point) => {
      const url = storeUrl();
      const ledger = join(dir, `${randomBytes(4).toString('hex')}.ledger`);
      // The dead node's lease must have expired before another node may take its run over: it is made to.
      await crashAt({ STORE_URL: url, LEDGER: ledger, TOOL: tool, POINT: point });
      await lapseLeases(url);
      return { url, ledger, wardrik: await restart(url, ledger) };
    };

    for (const tool of ['read', 'refund', 'email']) {
      it(`loses no ${tool} call killed before "started" was written: sent again, it runs once`, async () => {
        const { ledger, wardrik } = await scenario(tool, 'before-started');
        assert.deepEqual(await wardrik.inbox.list(), []);
        assert.equal((await send(wardrik, tool)).status, 'ok');
        assert.equal(effects(ledger, tool), 1);
        await wardrik.close();
      });
    }

    for (const tool of ['read', 'refund']) {
      it(`completes an in-flight ${tool} call after the restart (killed after "started", before the tool ran)`, async () => {
        const { ledger, wardrik } = await scenario(tool, 'after-started');
        assert.equal(effects(ledger, tool), 1);
        assert.deepEqual(await send(wardrik, tool), {
          status: 'ok',
          output: tool === 'read' ? 'read' : 'refunded',
          labels: ['confidential'],
        });
        await wardrik.close();
      });
    }

    it('does not repeat a refund killed after its effect: the same idempotency key finds it done', async () => {
      const { ledger, wardrik } = await scenario('refund', 'after-effect');
      assert.equal((await send(wardrik, 'refund')).status, 'ok');
      assert.deepEqual(readLedger(ledger), ['refund run-1:c1']);
      await wardrik.close();
    });

    it('parks an email killed after "started" as in_doubt, and runs it once when a person says it did not happen', async () => {
      const { ledger, wardrik } = await scenario('email', 'after-started');
      const [item] = await wardrik.inbox.list();
      assert.deepEqual([item?.kind, item?.call], ['in_doubt', 'c1']);
      assert.equal(effects(ledger, 'email'), 0);
      assert.equal((await send(wardrik, 'email')).status, 'parked', 'asking again does not run it');
      assert.equal((await wardrik.inbox.answer(item!.id, { happened: false })).status, 'ok');
      assert.equal(effects(ledger, 'email'), 1);
      await wardrik.close();
    });

    it('never sends an email twice when killed after its effect: it waits in doubt, and a person records it', async () => {
      const { ledger, wardrik } = await scenario('email', 'after-effect');
      const [item] = await wardrik.inbox.list();
      assert.equal(item?.kind, 'in_doubt');
      assert.equal(effects(ledger, 'email'), 1);
      assert.deepEqual(await wardrik.inbox.answer(item!.id, { happened: true, result: 'sent' }), {
        status: 'ok',
        output: 'sent',
        labels: [],
      });
      assert.deepEqual(await send(wardrik, 'email'), { status: 'ok', output: 'sent', labels: [] });
      assert.equal(effects(ledger, 'email'), 1);
      await wardrik.close();
    });
  });
}

describe('two nodes on one PostgreSQL', () => {
  it('finishes the run of a node killed mid-call once its lease expires, and not before', async () => {
    const [, storeUrl] = stores[1]!;
    const url = storeUrl();
    const ledger = join(dir, `${randomBytes(4).toString('hex')}.ledger`);
    const survivor = await restart(url, ledger, 'node-b');
    const crashed = crashAt({ STORE_URL: url, LEDGER: ledger, TOOL: 'refund', POINT: 'after-started', NODE: 'node-a' });
    await crashed;
    // Right after the kill node A's lease is still live: node B must leave its call alone.
    const early = await survivor.recover();
    assert.equal(early.rerun, 0);
    const report = await eventually("node A's lease to expire and node B to run its call again", async () => {
      const pass = await survivor.recover();
      return pass.rerun > 0 ? pass : undefined;
    });
    assert.equal(report.rerun, 1);
    assert.deepEqual(readLedger(ledger), ['refund run-1:c1']);
    await survivor.close();
  });

  it('runs a call parked on node A exactly once when people approve it on nodes A and B at once', async () => {
    const [, storeUrl] = stores[1]!;
    const url = storeUrl();
    const ledger = join(dir, `${randomBytes(4).toString('hex')}.ledger`);
    const options = (node: string) => ({
      store: url,
      tools: { t: ledgerTools(ledger) },
      runner: { node },
      recoverMs: Infinity,
    });
    const a = await Wardrik.create(options('node-a'));
    const b = await Wardrik.create(options('node-b'));
    const parked = await a.runner.run({ agent: 'a', run: 'run-9', call: { id: 'c1', name: 't__email' } });
    assert.equal(parked.status, 'parked');
    const [item] = await b.inbox.list();
    assert.equal(item?.call, 'c1', 'node B sees the item parked on node A');
    const results = await Promise.allSettled([
      a.inbox.approve(item!.id),
      b.inbox.approve(item!.id),
      b.inbox.approve(item!.id),
    ]);
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
    // Whichever approval counted, the call runs once: at once on the node holding its run, else at a recovery.
    await a.recover();
    await b.recover();
    assert.equal(effects(ledger, 'email'), 1);
    assert.deepEqual(await a.runner.run({ agent: 'a', run: 'run-9', call: { id: 'c1', name: 't__email' } }), {
      status: 'ok',
      output: 'sent',
      labels: ['confidential'],
    });
    await a.close();
    await b.close();
  });
});
