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
      'ended' in admitted ? endEarly(deps, admitted) : then(decide(deps, admitted), (verdict) => act(deps, verdict)),
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

function endEarly(deps: CallDeps, call: EndedEarly): Promise<ToolAnswer> {
  return deps.journal.writeNotRun(call.base, call.sent, call.ended, call.decision);
}
