import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { container as root } from 'tsyringe';
import { defineTool, openStore, Tokens, Wardrik, type Store, type ToolDefinition } from '../../src/index.js';
import { openSqliteUrl, scratchStores } from '../crash/scratch-stores.js';

/**
 * Two nodes on one store whose clocks disagree by two minutes (issue 27, point 10). A run's lease is
 * kept on the store's clock, so neither node sees the other's live lease as expired: a call one node is
 * running is never taken over by the other's recovery pass (parked `in_doubt` although it goes on and
 * finishes, which a person told "it did not happen" would run again).
 */
const { stores } = scratchStores('lease-clocks');

const TWO_MINUTES = 120_000;

/** A node of its own on the store at `url`, its clock `skewMs` off the host's. */
async function node(
  url: string,
  name: string,
  skewMs: number,
  refund: ToolDefinition,
): Promise<{ wardrik: Wardrik; store: Store }> {
  const container = root.createChildContainer();
  container.register(Tokens.Clock, { useValue: { now: () => Date.now() + skewMs } });
  const store = await openStore(url);
  const wardrik = await Wardrik.create({
    store,
    container,
    recoverMs: Infinity,
    runner: { node: name, leaseMs: 3_000 },
    tools: { shop: [refund] },
    policy: { rules: [{ match: 'shop/*', action: 'allow' }] },
  });
  return { wardrik, store };
}

/** A refund, not safe to repeat, that runs until the test lets it finish; `running` resolves once it started. */
function gatedRefund() {
  let started!: () => void;
  let finish!: () => void;
  const running = new Promise<void>((resolve) => (started = resolve));
  const gate = new Promise<void>((resolve) => (finish = resolve));
  const ran: string[] = [];
  const tool = defineTool({
    name: 'refund',
    description: 'Refunds an order.',
    run: async () => {
      ran.push('refund');
      started();
      await gate;
      return 're_1';
    },
  });
  return { tool, running, finish, ran };
}

/** Reads the run's lease as the store keeps it, and the store's clock now, in ms. */
async function leaseOf(url: string, run: string): Promise<{ node: string; leftMs: number } | undefined> {
  if (url.startsWith('sqlite:')) {
    const db = openSqliteUrl(url);
    try {
      const row = db.prepare('SELECT node, until FROM wardrik_leases WHERE run = ?').get(run) as
        { node: string; until: number } | undefined;
      return row === undefined ? undefined : { node: row.node, leftMs: row.until - Date.now() };
    } finally {
      db.close();
    }
  }
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url.replace(/\?.*$/, '') });
  await client.connect();
  try {
    const schema = new URL(url).searchParams.get('schema')!;
    const { rows } = await client.query<{ node: string; left_ms: number }>(
      `SELECT node, until - date_part('epoch', clock_timestamp()) * 1000 AS left_ms FROM "${schema}".wardrik_leases WHERE run = $1`,
      [run],
    );
    return rows[0] === undefined ? undefined : { node: rows[0].node, leftMs: rows[0].left_ms };
  } finally {
    await client.end();
  }
}

for (const [name, url] of stores) {
  describe(`Two nodes on ${name} whose clocks disagree by two minutes`, () => {
    for (const [who, skewA, skewB] of [
      ['the recovering node runs two minutes ahead', 0, TWO_MINUTES],
      ['the node running the call runs two minutes behind', -TWO_MINUTES, 0],
    ] as const) {
      it(`leave a call running on one node alone when ${who}: never parked in doubt, answered once`, async () => {
        const at = url();
        const refund = gatedRefund();
        const a = await node(at, 'node-a', skewA, refund.tool);
        const b = await node(at, 'node-b', skewB, gatedRefund().tool);
        try {
          const answer = a.wardrik.runner.run({
            agent: 'support',
            run: 'run-1',
            call: { id: 'c1', name: 'shop__refund', arguments: {} },
          });
          await refund.running;
          const report = await b.wardrik.recover();
          assert.equal(report.inDoubt, 0, 'node B parked a call node A is running');
          assert.equal(report.skipped, 1, 'node B left the run to node A, which holds it');
          refund.finish();
          assert.deepEqual(await answer, { status: 'ok', output: 're_1', labels: ['confidential'] });
          assert.equal((await b.store.getCall('run-1', 'c1'))?.state, 'succeeded');
          assert.deepEqual(await b.wardrik.inbox.list(), [], 'nothing waits for a person');
          assert.deepEqual(refund.ran, ['refund']);
        } finally {
          refund.finish();
          await a.wardrik.close();
          await b.wardrik.close();
        }
      });
    }

    for (const [who, skew] of [
      ['ahead', TWO_MINUTES],
      ['behind', -TWO_MINUTES],
    ] as const) {
      it(`keep the lease of a node whose clock is two minutes ${who} for the lease's length on the store's clock`, async () => {
        const at = url();
        const refund = gatedRefund();
        const a = await node(at, 'node-a', skew, refund.tool);
        try {
          const answer = a.wardrik.runner.run({
            agent: 'support',
            run: 'run-1',
            call: { id: 'c1', name: 'shop__refund', arguments: {} },
          });
          await refund.running;
          const lease = await leaseOf(at, 'run-1');
          assert.equal(lease?.node, 'node-a');
          // Taken a moment ago for 3 s: neither lapsed already (behind) nor two minutes longer (ahead).
          assert.ok(
            lease.leftMs > 0 && lease.leftMs <= 3_000,
            `the lease ends ${Math.round(lease.leftMs)} ms from now on the store's clock`,
          );
          refund.finish();
          await answer;
        } finally {
          refund.finish();
          await a.wardrik.close();
        }
      });
    }
  });
}
