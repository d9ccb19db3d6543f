import type { CallRecord, CallState } from '../store/store.js';
import { checkArguments } from '../tools/call-tool.js';
import { errorAnswer, type ToolAnswer } from '../tools/result.js';
import { isRepeatable } from '../tools/tool.js';
import { toMicroUsd } from '../money.js';
import { holdMs, type CallDeps } from './call-deps.js';
import { storeFailure } from './call-failures.js';
import { recordedAnswer } from './call-journal.js';
import { argumentsDigest } from './digest.js';
import { IN_DOUBT, prepareCall, type PreparedCall } from './prepared-call.js';
import type { Resumed } from './recovery.js';
import { record } from './record.js';

/**
 * Stage 4, attempt: under the run's lease, the call is journaled `started` (attempt `first`; journal
 * before effect), its tool runs (see `CallAttempts.run`; an `@Idempotent({ remember: true })` tool
 * answers from its key when it can), and stage 5 records the answer. `expected` is the state the
 * journal must hold (`undefined` for a new call): a write that finds another lost a race, and the
 * answer is then the winner's.
 */
export async function attempt(
  deps: CallDeps,
  p: PreparedCall,
  expected: CallState | undefined,
  first: number,
): Promise<ToolAnswer> {
  let leased: boolean;
  try {
    // Waits only when this node must ask the store (it holds most runs it works on already).
    const acquiring = deps.leases.acquire(p.run);
    leased = acquiring === true || (await acquiring);
  } catch (error) {
    throw storeFailure(p, 'lease its run', error);
  }
  if (!leased) {
    // A call asked for again may have finished before that node took the run: its answer is recorded.
    const known = expected === undefined ? await deps.store.getCall(p.run, p.call) : undefined;
    if (known !== undefined) return recordedAnswer(known, p.arguments);
    return errorAnswer(
      'conflict',
      `Run "${p.run}" is being handled by another node, so this call did not run. Try it again once that node is done.`,
    );
  }
  try {
    // Guard (journal-before-effect): `started` is durable before the tool runs, and only one writer wins it.
    const journaled = deps.journal.writeStarted(p, first, expected);
    if (!(journaled === true || (await journaled))) return await answerOrTakeOver(deps, p, expected);
    if (expected === undefined) deps.outcomes.called(p, p.decision);
    const trying =
      p.entry.tool.annotations.remember === true
        ? deps.remembered.answer(p, holdMs(deps, p.entry), () => deps.attempts.run(p, first), first)
        : deps.attempts.run(p, first);
    const tried = trying instanceof Promise ? await trying : trying;
    const answer =
      p.edited === undefined || tried.answer.status === 'parked' ? tried.answer : { ...tried.answer, edited: p.edited };
    if (tried.lost === true) return answer;
    const recorded = record(deps, p, answer, tried.attempt, expected);
    return recorded instanceof Promise ? await recorded : recorded;
  } finally {
    deps.leases.release(p.run);
  }
}

/**
 * Takes over a call the journal has `started` while nobody runs it (its node died): a repeatable
 * tool with valid arguments runs its next attempt; any other is parked `in_doubt` for a person. Only
 * while the call is still in flight: one answered since it was listed leaves the run to its node.
 */
export async function takeOver(deps: CallDeps, listed: CallRecord): Promise<{ resumed: Resumed; answer?: ToolAnswer }> {
  const entry = deps.catalog.get(listed.tool);
  if (entry === undefined) return { resumed: 'gone' };
  if (!(await deps.leases.acquire(listed.run, listed.call))) return { resumed: 'skipped' };
  try {
    const current = await deps.store.getCall(listed.run, listed.call);
    // Guard (take-over-while-started): a call answered since it was listed is its node's.
    if (current?.state !== 'started') return { resumed: 'gone' };
    const checking = await checkArguments(entry.tool, current.arguments);
    const p = prepareCall({
      agent: current.agent,
      run: current.run,
      call: current.call,
      entry,
      args: checking.ok ? checking.value : current.arguments,
      arguments: current.arguments,
      idempotencyKey: current.idempotencyKey,
      labels: await deps.store.getLabels(current.run),
      spentMicroUsd: toMicroUsd(current.costUsd ?? 0),
      decidedBy: current.decidedBy,
    });
    // The next attempt: the journal refuses a started-to-started write that does not advance it, so
    // of two nodes taking the call over at once only one runs it.
    if (checking.ok && isRepeatable(entry.tool))
      return { resumed: 'rerun', answer: await attempt(deps, p, 'started', current.attempt + 1) };
    return { resumed: 'inDoubt', answer: await deps.parked.park(p, 'in_doubt', IN_DOUBT, 'started') };
  } finally {
    deps.leases.release(listed.run);
  }
}

/**
 * The answer of a call the journal has already. One left `started`, with the same arguments, by a node
 * that no longer holds its run (this node holds the lease and is not running it) is taken over as
 * recovery takes it: a turn taken up after its node died sends its calls again, and must not hear that
 * a call nobody runs is "already running".
 */
async function answerOrTakeOver(deps: CallDeps, p: PreparedCall, expected: CallState | undefined): Promise<ToolAnswer> {
  const known =
    expected === undefined && !deps.journal.holdsAnswer(p.run, p.call)
      ? await deps.store.getCall(p.run, p.call)
      : undefined;
  const sameArguments =
    known !== undefined &&
    (known.arguments === null || argumentsDigest(known.arguments) === argumentsDigest(p.arguments));
  if (known?.state === 'started' && known.answer === undefined && sameArguments) {
    const { answer } = await takeOver(deps, known);
    if (answer !== undefined) return answer;
  }
  return deps.journal.journaledAnswer(p.run, p.call, p.arguments);
}
