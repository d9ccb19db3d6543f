import type { ToolAnswer } from '../tools/result.js';
import { admit, type EndedEarly } from './admit.js';
import { attempt } from './attempt.js';
import type { CallDeps } from './call-deps.js';
import { decide, type Verdict } from './decide.js';
import { holdBudget } from './hold-budget.js';
import { ref, type CallRequest } from './prepared-call.js';
import { then } from './maybe.js';

/**
 * A new call, stage by stage: admit (resolve, parse, check, read labels) → decide (the policy) →
 * hold budget → attempt (journal `started`, run the tool) → record (journal the answer, labels).
 * A call that ends before it runs is journaled with its answer and goes no further. Stages that can answer
 * at once do (see `then`): a call on a synchronous store waits for nothing it does not need.
 */
export function runNewCall(deps: CallDeps, request: CallRequest): Promise<ToolAnswer> {
  try {
    const answer = then(admit(deps, request), (admitted) =>
      'ended' in admitted
        ? endEarly(deps, admitted)
        : then(decide(deps, admitted), (verdict) =>
            request.maxCalls === undefined ? act(deps, verdict) : limited(deps, verdict, request.maxCalls),
          ),
    );
    return Promise.resolve(answer);
  } catch (error) {
    return Promise.reject(error); // a store that throws at once (its synchronous journal): as if it rejected
  }
}

function act(deps: CallDeps, verdict: Verdict): Promise<ToolAnswer> {
  if ('ended' in verdict) return endEarly(deps, verdict);
  if ('ask' in verdict) return deps.parked.park(verdict.ask, 'approval', verdict.reason, undefined);
  const p = verdict.run;
  return holdBudget(
    deps,
    p,
    () => attempt(deps, p, undefined, 1),
    (refused) => endEarly(deps, { base: ref(p), sent: p.arguments, ended: refused, decision: p.decision }),
  );
}

/**
 * `maxCalls`: a call that would run or ask takes a place among its tool's calls in the run first, while
 * this node holds the run (a run busy on another node is answered as it would be without a limit).
 */
async function limited(
  deps: CallDeps,
  verdict: Verdict,
  limits: Readonly<Record<string, number>>,
): Promise<ToolAnswer> {
  if ('ended' in verdict) return act(deps, verdict);
  const p = 'ask' in verdict ? verdict.ask : verdict.run;
  if (!(await deps.leases.acquire(p.run))) return act(deps, verdict);
  try {
    const { place, refused } = await deps.limits.take(p, limits);
    if (refused !== undefined)
      return await endEarly(deps, { base: ref(p), sent: p.arguments, ended: refused, decision: p.decision });
    const answer = await act(deps, verdict);
    // A call that never started (its budget spent, a conflict) leaves its place to another.
    if (
      place !== undefined &&
      answer.status === 'error' &&
      (answer.code === 'conflict' || answer.code === 'budget_spent')
    )
      await deps.limits.giveBack(p, place);
    return answer;
  } finally {
    deps.leases.release(p.run);
  }
}

function endEarly(deps: CallDeps, call: EndedEarly): Promise<ToolAnswer> {
  return deps.journal.writeNotRun(call.base, call.sent, call.ended, call.decision);
}
