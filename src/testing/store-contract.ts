import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { hasCapability, STORE_CAPABILITIES, type StoreCapability } from '../store/capabilities.js';
import { leaseRun } from '../store/journal-writes.js';
import type { FullStore, Store } from '../store/store.js';
import { auditContract } from './store-contract-audit.js';
import { batchesContract } from './store-contract-batches.js';
import { callsContract } from './store-contract-calls.js';
import { journalContract } from './store-contract-journal.js';
import type { ContractClock, ContractContext, ContractOptions } from './store-contract-kit.js';
import { recordsContract } from './store-contract-records.js';
import { rememberedContract } from './store-contract-remembered.js';
import { turnsContract } from './store-contract-turns.js';
import { valuesContract } from './store-contract-values.js';

export type { ContractClock, ContractOptions } from './store-contract-kit.js';

/**
 * The behaviour every Store must have, as `node:test` suites: call it at the top level of a test file
 * (`node --test`) with a way to make the store. The core (calls, the inbox, spend, labels, leases, turns and
 * steps, batches, values) always runs; each capability's part runs when `options.capabilities` claims it
 * (every one unless given), and one test checks the store implements exactly what it claims.
 *
 * `makeStore` may return stores that share data with earlier ones (one SQLite file, one PostgreSQL schema
 * per test file): each test uses its own run, agent and item ids, and reads lists only through them.
 */
export function storeContract(name: string, makeStore: () => Promise<Store>, options: ContractOptions): void {
  const claimed: readonly StoreCapability[] =
    options.capabilities ?? (Object.keys(STORE_CAPABILITIES) as StoreCapability[]);
  async function withStore(test: (store: Store) => Promise<void>): Promise<void> {
    const store = await makeStore();
    try {
      await test(store);
    } finally {
      await store.close();
    }
  }
  const context: ContractContext = {
    options,
    makeStore,
    withStore,
    // Run only for a store that claims the part's capabilities, which the test below holds it to.
    withFullStore: (test) => withStore((store) => test(store as FullStore)),
    lease: async (store, run, node, now, ttlMs) => {
      await options.clock.at(now);
      return leaseRun(store, run, node, ttlMs);
    },
    has: (capability) => claimed.includes(capability),
  };

  describe(`${name} (the Store contract)`, () => {
    it(`implements exactly the capabilities it claims (${claimed.join(', ') || 'the core alone'})`, () =>
      withStore(async (store) => {
        const implemented = (Object.keys(STORE_CAPABILITIES) as StoreCapability[]).filter((capability) =>
          hasCapability(store, capability),
        );
        assert.deepEqual(implemented, [...claimed].sort(byCapabilityOrder));
      }));
    callsContract(context);
    journalContract(context);
    turnsContract(context);
    batchesContract(context);
    rememberedContract(context);
    recordsContract(context);
    valuesContract(context);
    auditContract(context);
  });
}

function byCapabilityOrder(a: StoreCapability, b: StoreCapability): number {
  const order = Object.keys(STORE_CAPABILITIES);
  return order.indexOf(a) - order.indexOf(b);
}

/** A clock for a store that takes one (memory, SQLite), and the contract's hold on it. */
export function settableClock(): { readonly clock: { now(): number }; readonly contract: ContractClock } {
  let now = 0;
  return { clock: { now: () => now }, contract: { at: async (ms) => void (now = ms) } };
}
