import { ConfigurationError } from '../errors.js';
import type { AuditLog } from './audit-log.js';
import type { McpServerRecords, Pruning, RememberedResults, SpendHolds, Store } from './store.js';

/**
 * The optional parts of a store (see `Store`), by name, with the methods that make each one: a store has a
 * capability when it has every one of them. Names are what errors and docs/durable-runs.md say.
 */
export const STORE_CAPABILITIES: Readonly<Record<StoreCapability, readonly string[]>> = {
  RememberedResults: ['getRemembered', 'putRemembered', 'claimRemembered', 'releaseRemembered', 'pruneRemembered'],
  SpendHolds: ['holdSpend', 'releaseSpend'],
  Pruning: ['prune'],
  McpServerRecords: ['listMcpServers', 'putMcpServer', 'deleteMcpServer'],
  AuditLog: ['appendAudit', 'listAudit', 'pruneAudit'],
};

/** A capability's name (see `StoreCapabilities`). */
export type StoreCapability = 'RememberedResults' | 'SpendHolds' | 'Pruning' | 'McpServerRecords' | 'AuditLog';

/** The interface each capability name stands for. */
export interface StoreCapabilities {
  readonly RememberedResults: RememberedResults;
  readonly SpendHolds: SpendHolds;
  readonly Pruning: Pruning;
  readonly McpServerRecords: McpServerRecords;
  readonly AuditLog: AuditLog;
}

/** Whether `store` implements `capability`: every one of its methods is there. */
export function hasCapability<C extends StoreCapability>(
  store: Store,
  capability: C,
): store is Store & StoreCapabilities[C] {
  const methods = store as unknown as Record<string, unknown>;
  return STORE_CAPABILITIES[capability].every((method) => typeof methods[method] === 'function');
}

/**
 * `store` as a store with `capability`, or a ConfigurationError naming what lacks it, which feature needs
 * it and the fix. Called where a feature starts (Wardrik.create, an agent's budget, an MCP hub), so a store
 * without it is refused before any call runs, and again where the feature uses it.
 */
export function requireCapability<C extends StoreCapability>(
  store: Store,
  capability: C,
  feature: string,
  without = 'leave the feature out',
): Store & StoreCapabilities[C] {
  if (hasCapability(store, capability)) return store;
  const missing = STORE_CAPABILITIES[capability].filter(
    (method) => typeof (store as unknown as Record<string, unknown>)[method] !== 'function',
  );
  throw new ConfigurationError(
    `Store ${storeLabel(store)} does not implement ${capability} (missing ${missing.join(', ')}), which ${feature} needs. ` +
      `Implement ${capability} on the store (docs/durable-runs.md, "Your own store"), use a store that has it (memory, SQLite, PostgreSQL), or ${without}.`,
  );
}

function storeLabel(store: Store): string {
  const name = (store as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === 'string' && name !== '' && name !== 'Object' ? `"${name}"` : '(a plain object)';
}

/**
 * What `Wardrik.create`'s options need of its store, checked before anything runs: retention (on unless
 * `finishedAfterMs` is `Infinity`) needs `Pruning`, a tool that remembers its results `RememberedResults`.
 * A store opened read-only needs nothing: it runs neither.
 */
export function checkStartupNeeds(
  store: Store,
  needs: { readonly retention: boolean; readonly rememberingTool: string | undefined },
): void {
  if (store.readOnly === true) return;
  if (needs.retention)
    requireCapability(
      store,
      'Pruning',
      'retention (finished runs are deleted after retention.finishedAfterMs, 30 days unless set)',
      'pass retention: { finishedAfterMs: Infinity } to keep every run',
    );
  if (needs.rememberingTool !== undefined)
    requireCapability(
      store,
      'RememberedResults',
      `tool "${needs.rememberingTool}", which remembers its results (@Idempotent({ remember: true }))`,
      'drop remember: true',
    );
}
