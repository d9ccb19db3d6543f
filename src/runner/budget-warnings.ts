import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import { toMicroUsd, toUsd } from '../money.js';
import { requireCapability } from '../store/capabilities.js';
import type { Store } from '../store/store.js';
import type { EventBus } from '../telemetry/event-bus.js';
import { WHOLE_LIFE } from './budget-periods.js';

/** How long a period's warning is remembered: past the longest period (a month) with room to spare. */
const PERIOD_FLAG_MS = 62 * 24 * 60 * 60 * 1000;

/**
 * `budget.warning`: once an agent's spend in a period reaches `warnAt` of its budget, one event for that
 * period. The first node to see it claims a flag for the agent and period in the store (the same
 * compare-and-set as `maxCalls`), so of calls crossing it together, on any number of nodes, one emits.
 */
export class BudgetWarnings {
  /** Accounts this node has seen warned, so their later calls read nothing. */
  private readonly warned = new Set<string>();

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly events: EventBus,
  ) {}

  /** After a call's spend is durable: warns if the account's spend reached `warnAt` and no node warned yet. */
  async check(agent: string, account: string, period: string, budgetUsd: number, warnAt: number): Promise<void> {
    if (this.warned.has(account)) return;
    const spent = await this.store.getSpend(account);
    const limit = toMicroUsd(budgetUsd);
    // Guard (warn-at-threshold): nothing is emitted below the share.
    if (spent < limit * warnAt) return;
    const now = this.clock.now();
    const claims = requireCapability(this.store, 'RememberedResults', 'budget.warnAt');
    const key = `wardrik:budget-warning:${JSON.stringify([agent, period])}`;
    const expiresAt = period === WHOLE_LIFE ? Number.MAX_SAFE_INTEGER : now + PERIOD_FLAG_MS;
    // Each attempt claims as an owner of its own: a store hands a claim back to the owner that holds it.
    const owner = `budget-warning:${randomUUID()}`;
    const outcome = await claims.claimRemembered({ key, digest: '', owner, expiresAt }, now);
    this.warned.add(account);
    // Guard (warn-once): only the claim's winner emits.
    if (!outcome.claimed) return;
    this.events.emit({
      type: 'budget.warning',
      agent,
      period,
      spentUsd: toUsd(spent),
      limitUsd: budgetUsd,
      warnAt,
    });
  }
}
