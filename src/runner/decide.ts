import { EVERY_LABEL, reachesOutside, type Decision, type LabelGate, type Policy } from '../policy/policy.js';
import { OUTSIDE } from '../tools/labels.js';
import { errorAnswer } from '../tools/result.js';
import { valueVerdict } from '../tools/value-decision.js';
import type { AdmittedCall, EndedEarly } from './admit.js';
import type { CallDeps } from './call-deps.js';
import {
  callerOf,
  deniedAnswer,
  fromEarlierTurns,
  fromOutsideTools,
  NO_RESOURCES,
  prepareCall,
  requesterOf,
  unknownActionAnswer,
  type PreparedCall,
} from './prepared-call.js';
import { then, type Maybe } from './maybe.js';
import type { AuditTrail } from '../audit/audit-trail.js';
import { argumentsDigest } from './digest.js';

/** What the policy made of a call: run it, park it for a person (with why), or end it unrun. */
export type Verdict =
  { readonly run: PreparedCall } | { readonly ask: PreparedCall; readonly reason: string } | EndedEarly;

/**
 * Stage 2, decide: the policy sees what the call touches (`@Resources`) and its run's labels, and
 * allows, asks or denies. An `ask` that a person already granted for the rest of the run (`scope:
 * 'run'`) runs. Fail closed: a policy that throws, cannot see what the call touches, or answers an
 * action that is none of the three lets nothing run. With an audit trail, the verdict is appended to it
 * before anything acts on it.
 */
export function decide(deps: CallDeps, call: AdmittedCall): Maybe<Verdict> {
  let verdict = judge(deps, call);
  const audit = deps.audit;
  // Guard (verdict-audited): with an audit trail, no verdict is acted on before it is in the trail.
  if (audit !== undefined) verdict = then(verdict, (decided) => auditVerdict(audit, call, decided));
  return verdict;
}

function judge(deps: CallDeps, call: AdmittedCall): Maybe<Verdict> {
  const { request, entry, base, sent, args } = call;
  const labels = valueLabelsOf(call) ?? call.labels;
  const annotations = entry.tool.annotations;
  let resources: readonly string[] = NO_RESOURCES;
  try {
    if (annotations.resources !== undefined) resources = annotations.resources(args as never);
  } catch (error) {
    const message = `Tool "${entry.name}" could not say what it acts on (@Resources threw: ${(error as Error).message}); it did not run.`;
    return { base, sent, ended: errorAnswer('failed', message) };
  }
  let deciding: Maybe<Decision>;
  try {
    deciding = deps.policy.decide(
      {
        agent: request.agent,
        run: request.run,
        tool: entry.ref,
        annotations,
        arguments: args,
        labels,
        resources,
        onBehalfOf: requesterOf(request),
        ...(call.spentUsd === undefined || request.budgetUsd === undefined
          ? {}
          : { budget: { spentUsd: call.spentUsd, limitUsd: request.budgetUsd } }),
      },
      request.policy,
    );
  } catch (error) {
    // Guard (policy-fails-closed): a policy that throws lets nothing run.
    return undecided(deps, call, error);
  }
  if (deciding instanceof Promise)
    return deciding.then(
      (decision) => verdictOf(deps, call, withValueVerdict(call, decision)),
      (error: unknown) => undecided(deps, call, error),
    );
  return verdictOf(deps, call, withValueVerdict(call, deciding));
}

/**
 * With `labels: 'values'`, the labels a call is decided by: those of the held values its arguments hold and
 * of the outside data the model read in clear, with the run's other labels (confidential data is still
 * counted per run), but not the run's `outside`: outside text the model saw only as handles chose nothing.
 */
function valueLabelsOf(call: AdmittedCall): readonly string[] | undefined {
  const values = call.request.values;
  if (values === undefined) return undefined;
  const own = call.labels.filter((label) => label !== OUTSIDE);
  return [...new Set([...own, ...values.resolved.labels, ...values.steered])];
}

/**
 * The policy's decision joined with the rule that follows values (the strictest wins): a call whose arguments
 * hold outside values, or that outside data read in clear may have chosen, asks, naming each argument's source.
 */
function withValueVerdict(call: AdmittedCall, decision: Decision): Decision {
  const values = call.request.values;
  if (values === undefined || decision.action === 'deny') return decision;
  const annotations = call.entry.tool.annotations;
  const verdict = valueVerdict({
    tool: call.entry.ref,
    resolved: values.resolved,
    steered: values.steered,
    runLabels: call.labels,
    readOnly: annotations.readOnly === true,
    openWorld: reachesOutside(annotations),
  });
  // Guard (value-verdict-joined): a call the values rule asks about asks, whatever the policy allowed.
  if (verdict.verdict === 'policy') return decision;
  const rule = decision.action === 'ask' ? `${decision.rule}; ${verdict.reason}` : verdict.reason;
  return { ...decision, action: 'ask', rule };
}

function verdictOf(deps: CallDeps, call: AdmittedCall, decision: Decision): Maybe<Verdict> {
  const { request, entry, base, sent } = call;
  const labels = valueLabelsOf(call) ?? call.labels;
  const action = decision.action;
  switch (action) {
    case 'allow':
      return { run: prepared(call, decision) };
    case 'ask':
      return deps.grants
        .find({
          agent: request.agent,
          run: request.run,
          tool: entry.ref,
          arguments: sent,
          labels,
          gate: gateOf(deps, call),
        })
        .then((granted) =>
          granted !== undefined
            ? { run: prepared(call, granted) }
            : {
                ask: prepared(call, decision),
                reason: `Needs approval (${decision.rule}).${fromEarlierTurns(request.earlierTurns)}${fromOutsideTools(request.outsideTools)}`,
              },
        );
    case 'deny':
      return { base, sent, ended: deniedAnswer(decision.rule), decision };
    default:
      return { base, sent, ended: unknownActionAnswer(action, decision.rule), decision };
  }
}

function prepared(call: AdmittedCall, decision: Decision): PreparedCall {
  const { request } = call;
  return prepareCall({
    agent: request.agent,
    run: request.run,
    call: call.base.call,
    entry: call.entry,
    args: call.args,
    arguments: call.sent,
    idempotencyKey: request.idempotencyKey,
    labels: call.labels,
    valueLabels: valueLabelsOf(call),
    budgetUsd: request.budgetUsd,
    signal: request.signal,
    reporter: request.reporter,
    caller: callerOf(request),
    requester: requesterOf(request),
    decision,
  });
}

/** The labels that end a run grant for the call's tool; every label for a policy that cannot say (fail closed). */
function gateOf(deps: CallDeps, call: AdmittedCall): LabelGate {
  const policy = deps.policy as Partial<Policy>;
  if (typeof policy.labelsThatGate !== 'function') return EVERY_LABEL;
  return policy.labelsThatGate(call.entry.ref, call.entry.tool.annotations, call.request.policy);
}

/** Fail closed: a policy that cannot decide lets nothing run; the developer is told what broke. */
function undecided(deps: CallDeps, call: AdmittedCall, error: unknown): EndedEarly {
  const cause = (error as Error)?.message ?? String(error);
  deps.events.emit({
    type: 'warning',
    message: `The policy could not decide on call "${call.base.call}" of ${call.entry.ref} (${cause}); the call did not run. Fix the policy's decide hook.`,
  });
  const message = `The policy could not decide on this call, so it did not run (${cause}). Tell the user it needs a person.`;
  return { base: call.base, sent: call.sent, ended: errorAnswer('failed', message) };
}

/**
 * Appends the policy's verdict on a call to the audit trail, when there is one, before anything acts on it:
 * a verdict that cannot be audited fails the call (the store's error is thrown), so nothing runs unrecorded.
 */
function auditVerdict(audit: AuditTrail | undefined, call: AdmittedCall, verdict: Verdict): Maybe<Verdict> {
  if (audit === undefined) return verdict;
  return audit.record('decision', decisionData(call, verdict)).then(() => verdict);
}

/** A `decision` entry's data: the call, its arguments' digest, what was decided, by which rule, and why. */
function decisionData(call: AdmittedCall, verdict: Verdict): Record<string, unknown> {
  const { request, base } = call;
  const requester = requesterOf(request);
  const entry = {
    agent: base.agent,
    run: base.run,
    call: base.call,
    tool: base.tool,
    digest: argumentsDigest(call.sent ?? null),
    labels: call.labels,
    ...(requester === undefined ? {} : { requester }),
    ...(request.caller === undefined ? {} : { door: request.caller.door }),
  };
  if ('run' in verdict) return { ...entry, action: 'allow', rule: verdict.run.decision?.rule };
  if ('ask' in verdict) {
    const { decision } = verdict.ask;
    return { ...entry, action: 'ask', rule: decision?.rule, reason: verdict.reason, answerers: decision?.answerers };
  }
  const answer = verdict.ended;
  const reason = answer.status === 'error' ? answer.message : undefined;
  return { ...entry, action: 'deny', rule: verdict.decision?.rule ?? '(no rule decided)', reason };
}
