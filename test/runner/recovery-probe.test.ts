import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defineTool, openStore, Wardrik, type JournalWrite, type Store, type ToolDefinition } from '../../src/index.js';
import { scratchStores } from '../crash/scratch-stores.js';

/**
 * A call on a live session refused with "Run … is being handled by another node" while nodes were killed
 * and restarted under load (issue 27, point 9): another node's recovery pass had listed the session's
 * call while it was `started`, and by the time it took the run's lease the call had been answered and
 * its node had given the lease up (idle). The pass then held the run, for nothing, while the session's
 * next call came: refused, though nobody was running anything of the run. Here each step of that
 * interleaving is held until the one before it has happened, on real stores shared by two nodes.
 */
const { stores } = scratchStores('recovery-probe');

/** A promise and its resolver. */
function signal<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/**
 * The moments of the interleaving, as the nodes' stores see them: node B's pass lists the started call;
 * node A gives the run up; node B's lease request reaches the store (held until `mayLease`) and is
 * answered; node B's giving the run up waits for `mayRelease`.
 */
function moments(run: string) {
  return {
    listed: signal(),
    mayLease: signal(),
    leaseAnswered: signal<boolean>(),
    mayRelease: signal(),
    aReleased: signal(),
    run,
  };
}
type Moments = ReturnType<typeof moments>;

const releases = (writes: readonly JournalWrite[], run: string) =>
  writes.some((write) => 'release' in write && write.release.run === run);

/** `store` with some of its methods replaced (each given the store's own). */
function around(
  store: Store,
  hooks: {
    [K in 'listCalls' | 'writeJournal']?: (own: Store[K], ...args: Parameters<Store[K]>) => ReturnType<Store[K]>;
  },
): Store {
  return new Proxy(store, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== 'function') return value;
      const own = (value as (...args: unknown[]) => unknown).bind(target);
      const hook = (hooks as Record<PropertyKey, ((own: unknown, ...args: unknown[]) => unknown) | undefined>)[key];
      return hook === undefined ? own : (...args: unknown[]) => hook(own, ...args);
    },
  });
}

/** Node B's store: its recovery pass's lease of the run waits for the test, and so does its giving the run up. */
function recovering(store: Store, m: Moments): Store {
  return around(store, {
    listCalls: async (own, options) => {
      const calls = await own(options);
      if (options.state === 'started' && calls.some((record) => record.run === m.run)) m.listed.resolve();
      return calls;
    },
    writeJournal: async (own, writes) => {
      // The run's lease taken alone (`leaseRun`), as recovery takes a run over.
      const [only] = writes;
      if (writes.length === 1 && only !== undefined && 'lease' in only && only.lease.run === m.run) {
        await m.mayLease.promise;
        const took = await own(writes);
        m.leaseAnswered.resolve(took[0]!);
        return took;
      }
      if (releases(writes, m.run)) await m.mayRelease.promise;
      return own(writes);
    },
  });
}

/** Node A's store: tells the test once A has given the run up. */
function serving(store: Store, m: Moments): Store {
  return around(store, {
    writeJournal: async (own, writes) => {
      const results = await own(writes);
      if (releases(writes, m.run)) m.aReleased.resolve();
      return results;
    },
  });
}

/** A refund, not safe to repeat; its first call runs until the test lets it finish. */
function refund(started: () => void, gate: Promise<void>): ToolDefinition {
  let first = true;
  return defineTool({
    name: 'refund',
    description: 'Refunds an order.',
    run: async () => {
      if (first) {
        first = false;
        started();
        await gate;
      }
      return 're_1';
    },
  });
}

function opener(url: string): (m: Moments, node: 'a' | 'b') => Promise<Store> {
  return async (m, node) => {
    const store = await openStore(url);
    return node === 'a' ? serving(store, m) : recovering(store, m);
  };
}

for (const [name, url] of stores) {
  describe(`A recovery pass on another node, on ${name}`, () => {
    it("never holds a live session's run for a call answered meanwhile: the session's next call runs", async () => {
      const open = opener(url());
      const m = moments('session-run');
      const running = signal();
      const finish = signal();
      const policy = { rules: [{ match: 'shop/*', action: 'allow' as const }] };
      const a = await Wardrik.create({
        store: await open(m, 'a'),
        recoverMs: Infinity,
        runner: { node: 'node-a', leaseMs: 3_000 },
        tools: { shop: [refund(running.resolve, finish.promise)] },
        policy,
      });
      const b = await Wardrik.create({
        store: await open(m, 'b'),
        recoverMs: Infinity,
        runner: { node: 'node-b', leaseMs: 3_000 },
        tools: { shop: [refund(() => undefined, Promise.resolve())] },
        policy,
      });
      const call = (id: string) =>
        a.runner.run({ agent: 'support', run: m.run, call: { id, name: 'shop__refund', arguments: {} } });
      // Node A gives the run up from a timer that keeps no process alive: this one does, while the test waits for it.
      const alive = setInterval(() => undefined, 1_000);
      try {
        const first = call('c1');
        await running.promise;
        // Node B's pass lists c1, started, and goes for the run's lease.
        const pass = b.recover();
        await m.listed.promise;
        // c1 is answered, and node A, idle, gives the run up.
        finish.resolve();
        assert.equal((await first).status, 'ok');
        await m.aReleased.promise;
        // Only now does node B's lease request reach the store.
        m.mayLease.resolve();
        await Promise.race([m.leaseAnswered.promise, pass]);
        // The session's next call, while whatever node B took is still its own.
        const next = await call('c2');
        assert.deepEqual(
          next,
          { status: 'ok', output: 're_1', labels: ['confidential'] },
          `the session's next call was refused: ${JSON.stringify(next)}`,
        );
        m.mayRelease.resolve();
        const report = await pass;
        assert.equal(report.inDoubt + report.rerun, 0, 'node B took nothing over');
        assert.equal(
          (
            await a.runner.run({
              agent: 'support',
              run: m.run,
              call: { id: 'c1', name: 'shop__refund', arguments: {} },
            })
          ).status,
          'ok',
        );
      } finally {
        clearInterval(alive);
        finish.resolve();
        m.mayLease.resolve();
        m.mayRelease.resolve();
        await a.close();
        await b.close();
      }
    });
  });
}
