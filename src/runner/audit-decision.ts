import type { AuditTrail } from '../audit/audit-trail.js';
import type { AdmittedCall } from './admit.js';
import type { Verdict } from './decide.js';
import { argumentsDigest } from './digest.js';
import { requesterOf } from './prepared-call.js';
import type { Maybe } from './maybe.js';

/**
 * Appends the policy's verdict on a call to the audit trail, when there is one, before anything acts on it:
 * a verdict that cannot be audited fails the call (the store's error is thrown), so nothing runs unrecorded.
 */
export function auditVerdict(audit: AuditTrail | undefined, call: AdmittedCall, verdict: Verdict): Maybe<Verdict> {
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
