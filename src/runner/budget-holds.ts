import type { Clock } from '../clock.js';
import { toMicroUsd } from '../money.js';
import type { Store } from '../store/store.js';
import { sleep } from './transient.js';

/** What a budgeted call holds, and for how long at most (its node may die with it). */
export interface HoldRequest {
  readonly agent: string;
  /** The call: `JSON.stringify([run, call])`. */
  readonly id: string;
  /** `toolset/tool` */
  readonly tool: string;
  readonly budgetUsd: number;
  /** The tool's declared maximum cost a call (`@Cost({ maxUsd })`). */
  readonly maxCostUsd: number | undefined;
  readonly holdMs: number;
  readonly signal: AbortSignal | undefined;
}

/**
 * Budget holds (issue 13): reading the spend before a call and adding its cost after let 100 calls
 * started together under a $1 budget all run. Each budgeted call now holds part of the budget in the
 * store before it starts (its declared maximum, else the most its tool has cost so far) and gives it
 * back once done; a tool of unknown cost runs one call at a time per agent until its first cost is
 * known. The store makes each hold one atomic step, across nodes too.
 */
export class BudgetHolds {
  /** Calls waiting here for a tool of unknown cost to finish its call, by `agent \u0000 tool`. */
  private readonly waiting = new Map<string, Set<() => void>>();

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  /**
   * Holds for one call: `held`, `spent` when the budget is used up, or `stopped` when the caller's
   * signal aborted while waiting for a call of unknown cost to finish.
   */
  async hold(request: HoldRequest): Promise<'held' | 'spent' | 'stopped'> {
    const { agent, id, tool, holdMs, signal } = request;
    const budgetMicroUsd = toMicroUsd(request.budgetUsd);
    const maxMicroUsd = request.maxCostUsd === undefined ? undefined : toMicroUsd(request.maxCostUsd);
    for (let delayMs = 5; ; delayMs = Math.min(delayMs * 2, 200)) {
      const now = this.clock.now();
      const outcome = await this.store.holdSpend({ agent, id, tool, budgetMicroUsd, ...(maxMicroUsd === undefined ? {} : { maxMicroUsd }), expiresAt: now + holdMs }, now);
      if (outcome !== 'busy') return outcome;
      // Woken when a call of the tool ends here; polled for one that runs on another node.
      if (!(await this.waitForRelease(`${agent}\u0000${tool}`, delayMs, signal))) return 'stopped';
    }
  }

  /** Gives the hold back once the call is done; `ranUsd` is what it cost if its tool ran (its cost is then known). */
  async release(agent: string, id: string, tool: string, ranMicroUsd: number | undefined): Promise<void> {
    await this.store.releaseSpend(agent, id, tool, ranMicroUsd);
    const key = `${agent}\u0000${tool}`;
    const waiters = this.waiting.get(key);
    this.waiting.delete(key);
    for (const wake of waiters ?? []) wake();
  }

  private waitForRelease(key: string, ms: number, signal: AbortSignal | undefined): Promise<boolean> {
    let wake!: () => void;
    const woken = new Promise<boolean>((resolve) => (wake = () => resolve(true)));
    let waiters = this.waiting.get(key);
    if (waiters === undefined) this.waiting.set(key, (waiters = new Set()));
    waiters.add(wake);
    return Promise.race([woken, sleep(ms, signal)]).finally(() => this.waiting.get(key)?.delete(wake));
  }
}
