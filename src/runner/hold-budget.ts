import type { ToolAnswer } from '../tools/result.js';
import { holdMs, type CallDeps } from './call-deps.js';
import { budgetAnswer, ref, stoppedAnswer, type PreparedCall } from './prepared-call.js';

/**
 * Stage 3, hold budget: for an agent with a budget, part of it is held while the call runs (see
 * `BudgetHolds`), so calls at once cannot spend past it together; `refuse` journals a call that may
 * not start. A call without a budget just runs.
 */
export function holdBudget(
  deps: CallDeps,
  p: PreparedCall,
  run: () => Promise<ToolAnswer>,
  refuse: (answer: ToolAnswer) => Promise<ToolAnswer>,
): Promise<ToolAnswer> {
  const budgetUsd = p.budgetUsd;
  if (budgetUsd === undefined) return run();
  const maxCostUsd = p.entry.tool.annotations.maxCostUsd;
  return deps.budgets.within(
    { ...ref(p), budgetUsd, maxCostUsd, holdMs: holdMs(deps, p.entry), signal: p.signal },
    (account) => {
      p.spent.account = account;
      return run();
    },
    (why) => refuse(why === 'spent' ? budgetAnswer(budgetUsd) : stoppedAnswer(p)),
    () => (p.spent.ran === true ? p.spent.microUsd : undefined),
  );
}
