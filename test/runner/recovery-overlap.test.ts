import 'reflect-metadata';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import {
  defineTool,
  MemoryStore,
  openStore,
  Wardrik,
  type CallRecord,
  type Store,
  type ToolContext,
} from '../../src/index.js';
import { counter } from './helpers.js';
import { writeCall } from '../../src/store/journal-writes.js';

/**
 * Recovery while things happen at once (issue 13, points 1 and 2): passes that would overlap, calls this
 * node is running (recovered or approved) seen `started` by its own next pass.
 */
const dir = mkdtempSync(join(tmpdir(), 'wardrik-overlap-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function inFlight(run: string, call: string, tool: string): CallRecord {
  return {
    run,
    call,
    agent: 'a',
    tool,
    arguments: {},
    idempotencyKey: `${run}:${call}`,
    state: 'started',
    attempt: 1,
    updatedAt: 1,
  };
}

/** Tools that take `ms` and count their runs: `slow_read` (read-only) and `slow_email` (not safe to repeat). */
function slowTools(ran: ReturnType<typeof counter>, ms: number, live = { now: 0, max: 0 }) {
  const body = async (name: string, ctx: ToolContext) => {
    ran.calls.push([name, ctx.run, ctx.call]);
    live.max = Math.max(live.max, ++live.now);
    await sleep(ms);
    live.now--;
    return name;
  };
  return {
    t: [
      defineTool({
        name: 'slow_read',
        description: 'd',
        annotations: { readOnly: true },
        run: (_a, ctx: ToolContext) => body('read', ctx),
      }),
      defineTool({ name: 'slow_email', description: 'd', run: (_a, ctx: ToolContext) => body('email', ctx) }),
    ],
  };
}

const stores: [string, () => Promise<Store>][] = [
  ['memory', async () => new MemoryStore()],
  ['SQLite', () => openStore(`sqlite:${join(dir, `${Math.random().toString(36).slice(2)}.db`)}`)],
];

for (const [name, makeStore] of stores) {
  describe(`recovery that never overlaps itself, on ${name}`, () => {
    it('runs a call left started once, though passes start every 50 ms and the call takes 300 ms', async () => {
      const store = await makeStore();
      await writeCall(store, inFlight('run-1', 'c1', 't/slow_read'), undefined);
      const ran = counter();
      const wardrik = await Wardrik.create({ store, tools: slowTools(ran, 300), recoverMs: 50 });
      // Start-up's pass ran it while passes fell due every 50 ms; one more pass starts after any under way ended.
      await wardrik.recover();
      assert.equal(ran.count, 1);
      assert.equal((await store.getCall('run-1', 'c1'))?.state, 'succeeded');
      await wardrik.close();
      await store.close();
    });

    it('answers a manual recover() during a pass after that pass, running nothing twice', async () => {
      const store = await makeStore();
      for (let i = 0; i < 3; i++) await writeCall(store, inFlight(`run-${i}`, 'c1', 't/slow_read'), undefined);
      const ran = counter();
      const wardrik = await Wardrik.create({ store, tools: slowTools(ran, 100), recoverMs: Infinity });
      await Promise.all([wardrik.recover(), wardrik.recover(), wardrik.recover()]);
      assert.equal(ran.count, 3);
      await wardrik.close();
      await store.close();
    });

    it('recovers the calls of different runs at the same time, within a bound', async () => {
      const store = await makeStore();
      for (let i = 0; i < 20; i++) await writeCall(store, inFlight(`run-${i}`, 'c1', 't/slow_read'), undefined);
      const ran = counter();
      const live = { now: 0, max: 0 };
      const wardrik = await Wardrik.create({ store, tools: slowTools(ran, 50, live), recoverMs: Infinity });
      assert.equal(ran.count, 20);
      assert.ok(live.max > 1, `calls of different runs overlap (at most ${live.max} at once)`);
      assert.ok(live.max <= 8, `no more than 8 runs at once (saw ${live.max})`);
      await wardrik.close();
      await store.close();
    });
  });

  describe(`an approved call is never mistaken for a crashed one, on ${name}`, () => {
    it('runs an approved call once while recovery passes come every 100 ms, and answers its result', async () => {
      const store = await makeStore();
      const ran = counter();
      const wardrik = await Wardrik.create({
        store,
        tools: slowTools(ran, 300),
        policy: { rules: [{ match: 't/slow_email', action: 'ask' }] },
        recoverMs: 100,
      });
      const parked = await wardrik.runner.run({ agent: 'a', run: 'run-1', call: { id: 'e1', name: 't__slow_email' } });
      assert.equal(parked.status, 'parked');
      const answer = await wardrik.inbox.approve(parked.status === 'parked' ? parked.inboxId! : '');
      assert.deepEqual(answer, { status: 'ok', output: 'email', labels: ['confidential'] });
      // A pass starts after any under way ended: one that took the call for a crashed one has run it by then.
      await wardrik.recover();
      assert.equal(ran.count, 1, 'one email');
      assert.deepEqual(await wardrik.inbox.list(), [], 'nothing parked in doubt');
      await wardrik.close();
      await store.close();
    });

    it('runs a call a person said did not happen once while recovery passes come every 100 ms', async () => {
      const store = await makeStore();
      await writeCall(store, inFlight('run-1', 'e2', 't/slow_email'), undefined);
      const ran = counter();
      const wardrik = await Wardrik.create({ store, tools: slowTools(ran, 300), recoverMs: 100 });
      const [item] = await wardrik.inbox.list();
      assert.equal(item?.kind, 'in_doubt');
      assert.equal((await wardrik.inbox.answer(item!.id, { happened: false })).status, 'ok');
      await wardrik.recover();
      assert.equal(ran.count, 1);
      assert.deepEqual(await wardrik.inbox.list(), []);
      await wardrik.close();
      await store.close();
    });
  });
}
