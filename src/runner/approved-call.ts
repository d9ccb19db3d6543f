import { decidedWith, type PersonAnswer } from '../policy/decision.js';
import type { InboxRecord, ParkedKind } from '../store/store.js';
import { checkArguments, invalidArgumentsAnswer } from '../tools/call-tool.js';
import { errorAnswer, type ToolAnswer } from '../tools/result.js';
import { attempt } from './attempt.js';
import type { CallDeps } from './call-deps.js';
import { holdBudget } from './hold-budget.js';
import { prepareCall } from './prepared-call.js';

/**
 * A parked call a person let go (approved, or said an in-doubt call did not happen), from stage 3 on:
 * `mark` records the person's answer first (its compare-and-set makes one answer count). Arguments a
 * person changed run instead of the model's, and the answer says so. When another node holds the run,
 * the call is left approved and answers `parked`: a recovery runs it once the run is free.
 */
export async function runApprovedCall(
  deps: CallDeps,
  item: InboxRecord,
  mark: () => Promise<void>,
): Promise<ToolAnswer> {
  await mark();
  if (!(await deps.leases.acquire(item.run))) {
    const reason = `A person let this call go; run "${item.run}" is busy on another node right now, so the next recovery runs it once the run is free.`;
    return { status: 'parked', kind: item.kind as ParkedKind, inboxId: item.id, reason, labels: item.labels };
  }
  try {
    const entry = deps.catalog.get(item.tool);
    const base = { agent: item.agent, run: item.run, call: item.call, tool: item.tool };
    const person = approvalOf(item);
    if (entry === undefined) {
      const gone = errorAnswer(
        'tool_not_found',
        `Tool "${item.tool}" is no longer available, so the call did not run.`,
      );
      return await deps.parked.answerWithoutRunning(base, gone, 'parked', person);
    }
    const sent = item.edited?.arguments ?? item.arguments;
    const checked = await checkArguments(entry.tool, sent);
    if (!checked.ok)
      return await deps.parked.answerWithoutRunning(
        base,
        invalidArgumentsAnswer(entry.name, checked.issues),
        'parked',
        person,
      );
    const known = await deps.store.getCall(item.run, item.call);
    const edited = item.edited;
    const p = prepareCall({
      agent: item.agent,
      run: item.run,
      call: item.call,
      entry,
      args: checked.value,
      arguments: sent,
      idempotencyKey: known?.idempotencyKey,
      labels: await deps.store.getLabels(item.run),
      budgetUsd: item.budgetUsd,
      decidedBy: decidedWith(known?.decidedBy, person),
      edited:
        edited === undefined
          ? undefined
          : { original: item.arguments, arguments: sent, ...(edited.by === undefined ? {} : { by: edited.by }) },
    });
    const first = (known?.attempt ?? 0) + 1;
    return await holdBudget(
      deps,
      p,
      () => attempt(deps, p, 'parked', first),
      (refused) => deps.parked.answerWithoutRunning(base, refused, 'parked', person),
    );
  } finally {
    deps.leases.release(item.run);
  }
}

/** Who let the call go: everyone whose approval made its quorum, else the person who approved it. */
function approvalOf(item: InboxRecord): PersonAnswer {
  const quorum = item.approvals?.map((approval) => approval.by);
  return { verb: 'approved', by: quorum !== undefined && quorum.length > 0 ? quorum.join(', ') : item.by };
}
