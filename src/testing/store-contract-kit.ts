import { randomUUID } from 'node:crypto';
import type { StoreCapability } from '../store/capabilities.js';
import type {
  CallRecord,
  CallState,
  FullStore,
  InboxRecord,
  McpServerRecord,
  Store,
  TurnRecord,
} from '../store/store.js';

/**
 * The store's clock, where run leases take their times (a `lease` journal write): `at(ms)` makes it read
 * `ms` from then on. Memory and SQLite take a clock; PostgreSQL reads its server's, so its suite moves the
 * leases' ends instead (see test/store/postgres-store.test.ts).
 */
export interface ContractClock {
  at(ms: number): Promise<void>;
}

/** What `storeContract` is told about the store it checks. */
export interface ContractOptions {
  /** The store keeps its data across `close()` and a new `makeStore()` (SQLite, PostgreSQL). */
  readonly durable: boolean;
  /** Its writes are synchronous, and it offers them as `sync` (memory, SQLite). */
  readonly synchronous: boolean;
  readonly clock: ContractClock;
  /**
   * The capabilities the store implements, whose parts of the contract run too: every one unless given
   * (as memory, SQLite and PostgreSQL have). `[]` for a store of the core alone.
   */
  readonly capabilities?: readonly StoreCapability[];
}

/** What each part of the contract is handed (see store-contract.ts). */
export interface ContractContext {
  readonly options: ContractOptions;
  readonly makeStore: () => Promise<Store>;
  /** Runs `test` on a new store, closing it after. */
  readonly withStore: (test: (store: Store) => Promise<void>) => Promise<void>;
  /** `withStore` for a part that runs only when the store claims its capabilities. */
  readonly withFullStore: (test: (store: FullStore) => Promise<void>) => Promise<void>;
  /** A `lease` journal write with the store's clock at `now`. */
  readonly lease: (store: Store, run: string, node: string, now: number, ttlMs: number) => Promise<boolean>;
  /** Whether the store claims `capability` (`ContractOptions.capabilities`). */
  readonly has: (capability: StoreCapability) => boolean;
}

export function call(over: Partial<CallRecord> & { readonly state: CallState }): CallRecord {
  return {
    run: `run-${randomUUID()}`,
    call: 'c1',
    agent: 'triage',
    tool: 'orders/refund_order',
    arguments: { orderId: 'o-1', amount: 12.5 },
    idempotencyKey: `key-${randomUUID()}`,
    attempt: 1,
    updatedAt: 1_700_000_000_000,
    ...over,
  };
}

export function turn(over: Partial<TurnRecord>): TurnRecord {
  return {
    run: `run-${randomUUID()}`,
    agent: `agent-${randomUUID()}`,
    status: 'running',
    version: 1,
    data: { messages: [{ role: 'user', content: 'refund order o-1' }] },
    createdAt: 1_700_000_000_000,
    updatedAt: 1_700_000_000_000,
    ...over,
  };
}

export function mcpServer(
  over: Partial<McpServerRecord> & { readonly hub: string; readonly name: string },
): McpServerRecord {
  return { options: { url: 'http://127.0.0.1:3000/mcp' }, updatedAt: 1_700_000_000_000, ...over };
}

export function inboxItem(over: Partial<InboxRecord>): InboxRecord {
  return {
    id: `inbox-${randomUUID()}`,
    kind: 'approval',
    status: 'pending',
    agent: 'triage',
    run: `run-${randomUUID()}`,
    call: 'c1',
    tool: 'orders/refund_order',
    arguments: { orderId: 'o-1' },
    digest: 'f'.repeat(64),
    labels: [],
    reason: 'refunds ask a person',
    createdAt: 1_700_000_000_000,
    budgetUsd: 2,
    ...over,
  };
}

export function ok(output: unknown, labels: readonly string[] = []) {
  return { status: 'ok' as const, output, labels };
}

export function range(count: number): number[] {
  return Array.from({ length: count }, (_, i) => i);
}
