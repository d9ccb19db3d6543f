import { toUsd } from '../money.js';
import type { HoldRequest } from '../runner/budget-holds.js';
import type { ModelPrice } from './pricing.js';

/** How long a model call's budget hold lives if its node dies mid-call. */
const MODEL_HOLD_MS = 10 * 60_000;

/**
 * What a model call under an agent's budget holds while it runs, as a tool call does (see
 * `BudgetHolds`): its maximum output cost when `maxOutputTokens` is set, else the most one of this
 * model's steps has cost so far (one model call at a time per agent until the first is priced). So
 * turns of one agent running at once cannot all start on the last dollar.
 */
export function modelHold(
  call: { readonly agent: string; readonly run: string; readonly step: number; readonly spec: string },
  price: ModelPrice | undefined,
  maxOutputTokens: number | undefined,
  budgetUsd: number,
  signal: AbortSignal,
): HoldRequest {
  const maxCostUsd =
    price === undefined || maxOutputTokens === undefined
      ? undefined
      : toUsd(Math.ceil(maxOutputTokens * price.outputPerMTok));
  return {
    agent: call.agent,
    run: call.run,
    call: `model-step-${call.step}`,
    tool: `model:${call.spec}`,
    budgetUsd,
    maxCostUsd,
    holdMs: MODEL_HOLD_MS,
    signal,
  };
}
