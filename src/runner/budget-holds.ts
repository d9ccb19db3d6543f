import type { Clock, Timers } from '../clock.js';
import { toMicroUsd } from '../money.js';
import type { Store } from '../store/store.js';
import { requireCapability } from '../store/capabilities.js';
import type { EventBus } from '../telemetry/event-bus.js';
import type { ToolAnswer } from '../tools/result.js';
import { accountOf, periodOf, type BudgetPlan } from './budget-periods.js';
import { BudgetWarnings } from './budget-warnings.js';
import { storeFailure, type CallRef } from './call-failures.js';

/** A budgeted call about to start: its budget, its tool's declared maximum, and how long it can take at most (its node may die meanwhile). */
export interface HoldRequest extends CallRef {
  readonly budgetUsd: number;
  /** The tool's declared maximum cost a call (`@Cost({ maxUsd })`). */
  readonly maxCostUsd: number | undefined;
  readonly holdMs: number;
  readonly signal: AbortSignal | undefined;
}

/**
 * Budget holds: reading the spend before a call and adding its cost after let 100 calls
 * started together under a $1 budget all run. Each budgeted call now holds part of the budget in the
 * store before it starts (its declared maximum, else the most its tool has cost so far) and gives it
 * back once done; a tool of unknown cost runs one call at a time per agent until its first cost is
 * known. The store makes each hold one atomic step, across nodes too.
 */
export class BudgetHolds {
  /** Calls waiting here for a tool of unknown cost to finish its call, by `agent \u0000 tool`. */
  private readonly waiting = new Map<string, Set<() => void>>();
  /** Agents whose budget has a period or a warning (`startAgent({ budget })`); others count their whole life. */
  private readonly plans = new Map<string, BudgetPlan>();
  private readonly warnings: BudgetWarnings;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly timers: Timers,
    events: EventBus,
  ) {
    this.warnings = new BudgetWarnings(store, clock, events);
  }

  /** Counts `agent`'s spend by the plan's period from now on (an agent's `budget`), on this node. */
  plan(agent: string, plan: BudgetPlan): void {
    this.plans.set(agent, plan);
  }

  /**
   * Where `agent`'s spend counts now: the store key of its spend and holds (the agent's id, or the
   * agent and the current period) and the period's name.
   */
  accountNow(agent: string): { readonly account: string; readonly period: string } {
    const period = periodOf(this.plans.get(agent), this.clock.now());
    return { account: accountOf(agent, period), period };
  }

  private holds() {
    return requireCapability(this.store, 'SpendHolds', 'an agent budget', 'leave the budget out');
  }

  /**
   * Runs a call (a tool's, or a model's) holding part of the budget, and gives the hold back when it ends. A call that may not
   * start is answered by `refuse`: `spent` (the budget is used up) or `stopped` (the caller's signal
   * aborted while it waited for a call of unknown cost). `cost` says, once the call ends, what it cost
   * in micro-dollars if its tool ran (then that tool's cost is known), or `undefined`. `run` is told the
   * account the hold is in: the call's spend is added to it too (see `addSpend`), so a call that ends
   * in the next period still counts where it held.
   */
  async within<T = ToolAnswer>(
    request: HoldRequest,
    run: (account: string) => Promise<T>,
    refuse: (why: 'spent' | 'stopped') => Promise<T>,
    cost: () => number | undefined,
  ): Promise<T> {
    const id = JSON.stringify([request.run, request.call]);
    const { account, period } = this.accountNow(request.agent);
    let held: 'held' | 'spent' | 'stopped';
    try {
      held = await this.hold(id, account, request);
    } catch (error) {
      throw storeFailure(request, 'hold part of its budget', error);
    }
    // Guard (within-budget): no call starts without its hold on the budget.
    if (held !== 'held') return refuse(held);
    try {
      return await run(account);
    } finally {
      // A hold the store fails to give back lapses at its expiry: the call's answer stands.
      await this.release(account, id, request.tool, cost()).catch(() => undefined);
      const warnAt = this.plans.get(request.agent)?.warnAt;
      // A warning the store fails to flag is tried again by the next call.
      if (warnAt !== undefined)
        await this.warnings.check(request.agent, account, period, request.budgetUsd, warnAt).catch(() => undefined);
    }
  }

  private async hold(id: string, agent: string, request: HoldRequest): Promise<'held' | 'spent' | 'stopped'> {
    const { tool, holdMs, signal } = request;
    const budgetMicroUsd = toMicroUsd(request.budgetUsd);
    const maxMicroUsd = request.maxCostUsd === undefined ? undefined : toMicroUsd(request.maxCostUsd);
    for (let delayMs = 5; ; delayMs = Math.min(delayMs * 2, 200)) {
      const now = this.clock.now();
      const outcome = await this.holds().holdSpend(
        {
          agent,
          id,
          tool,
          budgetMicroUsd,
          ...(maxMicroUsd === undefined ? {} : { maxMicroUsd }),
          expiresAt: now + holdMs,
        },
        now,
      );
      if (outcome !== 'busy') return outcome;
      // Woken when a call of the tool ends here; polled for one that runs on another node.
      if (!(await this.waitForRelease(`${agent}\u0000${tool}`, delayMs, signal))) return 'stopped';
    }
  }

  private async release(agent: string, id: string, tool: string, costMicroUsd: number | undefined): Promise<void> {
    const key = `${agent}\u0000${tool}`;
    try {
      await this.holds().releaseSpend(agent, id, tool, costMicroUsd);
    } finally {
      const waiters = this.waiting.get(key);
      this.waiting.delete(key);
      for (const wake of waiters ?? []) wake();
    }
  }

  /** True when a call of the tool ended here or `ms` passed (look again), false when `signal` aborted; leaves no timer or listener behind. */
  private waitForRelease(key: string, ms: number, signal: AbortSignal | undefined): Promise<boolean> {
    if (signal?.aborted === true) return Promise.resolve(false);
    let waiters = this.waiting.get(key);
    if (waiters === undefined) this.waiting.set(key, (waiters = new Set()));
    const set = waiters;
    return new Promise<boolean>((resolve) => {
      const end = (again: boolean): void => {
        timer.cancel();
        signal?.removeEventListener('abort', stop);
        set.delete(wake);
        resolve(again);
      };
      const wake = (): void => end(true);
      const stop = (): void => end(false);
      const timer = this.timers.after(ms, wake);
      signal?.addEventListener('abort', stop, { once: true });
      set.add(wake);
    });
  }
}
