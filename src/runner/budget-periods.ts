import { ConfigurationError } from '../errors.js';

/** An agent's budget (`startAgent({ budget })`): dollars for its whole life, or for each day or month in a time zone. */
export interface AgentBudget {
  /** Dollars the agent may spend in each period (its whole life without `per`), on models and tools together. */
  readonly usd: number;
  /** `'day'` or `'month'`: the budget starts afresh each period. Leave it out for one budget for the agent's whole life. */
  readonly per?: 'day' | 'month';
  /** The IANA time zone whose midnight starts a period, such as `'Europe/Berlin'`: `'UTC'`. */
  readonly timeZone?: string;
  /** The share of `usd` whose spending emits one `budget.warning` event a period, such as 0.8. */
  readonly warnAt?: number;
}

/** How an agent's spend is counted against its budget: which period, and when to warn. */
export interface BudgetPlan {
  readonly per?: 'day' | 'month';
  readonly timeZone: string;
  readonly warnAt?: number;
}

/** The whole-life account: the agent's spend row itself. */
export const WHOLE_LIFE = 'life';

/**
 * The period `now` falls in, as the budget's time zone names it: `'2026-12-04'` for a day,
 * `'2026-12'` for a month, `'life'` without a period.
 */
export function periodOf(plan: BudgetPlan | undefined, now: number): string {
  if (plan?.per === undefined) return WHOLE_LIFE;
  const parts = formatIn(plan.timeZone).formatToParts(now);
  const part = (type: string): string => parts.find((p) => p.type === type)?.value ?? '';
  const month = `${part('year')}-${part('month')}`;
  return plan.per === 'month' ? month : `${month}-${part('day')}`;
}

/**
 * The key the spend and holds of an agent's budget are kept under in the store: the agent's id for a
 * whole-life budget, else the agent and the period, so each period's spend starts at nothing.
 */
export function accountOf(agent: string, period: string): string {
  return period === WHOLE_LIFE ? agent : JSON.stringify(['budget', agent, period]);
}

const formats = new Map<string, Intl.DateTimeFormat>();

function formatIn(timeZone: string): Intl.DateTimeFormat {
  let format = formats.get(timeZone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
    formats.set(timeZone, format);
  }
  return format;
}

/** Checks `startAgent({ budget })` (and that it does not come with `budgetUsd`); returns its plan. */
export function checkBudget(where: string, budget: unknown, budgetUsd: unknown): BudgetPlan | undefined {
  if (budget === undefined) return undefined;
  if (budgetUsd !== undefined)
    throw new ConfigurationError(
      `${where}: give budget or budgetUsd, not both; budgetUsd: N is budget: { usd: N } (the whole life), so keep only budget.`,
    );
  if (budget === null || typeof budget !== 'object' || Array.isArray(budget))
    throw new ConfigurationError(
      `${where}: budget is { usd, per?, timeZone?, warnAt? }, such as { usd: 50, per: 'day' }; got ${JSON.stringify(budget)?.slice(0, 80)}.`,
    );
  const { usd, per, timeZone, warnAt } = budget as Record<string, unknown>;
  if (typeof usd !== 'number' || !Number.isFinite(usd) || usd <= 0)
    throw new ConfigurationError(
      `${where}: budget.usd is the dollars the agent may spend each period, a number above 0 such as 50; got ${JSON.stringify(usd)}.`,
    );
  if (per !== undefined && per !== 'day' && per !== 'month')
    throw new ConfigurationError(
      `${where}: budget.per is 'day' or 'month' (leave it out for one budget for the agent's whole life); got ${JSON.stringify(per)?.slice(0, 40)}.`,
    );
  if (timeZone !== undefined) {
    if (per === undefined)
      throw new ConfigurationError(
        `${where}: budget.timeZone says where a day or month starts; give per: 'day' or 'month' with it, or leave it out.`,
      );
    if (typeof timeZone !== 'string' || !knownZone(timeZone))
      throw new ConfigurationError(
        `${where}: budget.timeZone ${JSON.stringify(timeZone)?.slice(0, 60)} is not an IANA time zone this Node.js knows; write one such as 'Europe/Berlin', 'Asia/Tokyo' or 'UTC'.`,
      );
  }
  if (warnAt !== undefined && (typeof warnAt !== 'number' || !(warnAt > 0 && warnAt <= 1)))
    throw new ConfigurationError(
      `${where}: budget.warnAt is the share of budget.usd spent that emits a budget.warning event, a number above 0 up to 1 such as 0.8; got ${JSON.stringify(warnAt)}.`,
    );
  return {
    ...(per === undefined ? {} : { per }),
    timeZone: (timeZone as string | undefined) ?? 'UTC',
    ...(warnAt === undefined ? {} : { warnAt }),
  };
}

function knownZone(timeZone: string): boolean {
  try {
    formatIn(timeZone);
    return true;
  } catch {
    return false;
  }
}
