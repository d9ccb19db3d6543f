import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { Answerers } from '../policy/answerers.js';
import type { CallRecord, CallState, InboxRecord, ParkedKind, Store } from '../store/store.js';
import { writeCall } from '../store/journal-writes.js';
import { mergeLabels } from '../tools/call-tool.js';
import type { ToolAnswer } from '../tools/result.js';
import { ConflictError } from '../errors.js';
import { storeFailure, type CallRef } from './call-failures.js';
import type { CallJournal } from './call-journal.js';
import type { CallOutcomes } from './call-outcomes.js';
import { argumentsDigest } from './digest.js';
import type { PreparedCall } from './prepared-call.js';

/**
 * Parked calls: parking one (journal first, then its inbox item), putting back an item a crash lost,
 * and writing the answer a person gave to a call that then does not run (denied, or answered).
 */
export class ParkedCalls {
  constructor(
    private readonly store: Store,
    private readonly journal: CallJournal,
    private readonly outcomes: CallOutcomes,
    private readonly clock: Clock,
  ) {}

  async park(
    p: PreparedCall,
    kind: ParkedKind,
    reason: string,
    expected: CallState | undefined,
    labels: readonly string[] = [],
    detail?: unknown,
  ): Promise<ToolAnswer> {
    if (expected !== undefined) return this.parkWritten(p, kind, reason, expected, labels, detail);
    try {
      return await this.parkWritten(p, kind, reason, expected, labels, detail);
    } catch (error) {
      // A new call that could not be parked never ran: say so (after a run, the caller says it ran).
      if (error instanceof ConflictError) throw error;
      throw storeFailure(p, 'park it for a person', error);
    }
  }

  private async parkWritten(
    p: PreparedCall,
    kind: ParkedKind,
    reason: string,
    expected: CallState | undefined,
    labels: readonly string[],
    detail: unknown,
  ): Promise<ToolAnswer> {
    const inboxId = randomUUID();
    const answer: ToolAnswer = { status: 'parked', kind, inboxId, reason, labels };
    const answerers = kind === 'approval' ? p.decision?.answerers : undefined;
    const decidedBy = kind === 'approval' ? p.decision?.rule : undefined;
    const approval =
      answerers === undefined && p.requester === undefined && decidedBy === undefined
        ? undefined
        : {
            ...(answerers === undefined ? {} : { answerers }),
            ...(p.requester === undefined ? {} : { requester: p.requester }),
            ...(decidedBy === undefined ? {} : { decidedBy }),
          };
    // The journal first: a crash between the two leaves a parked call whose item recovery puts back (with
    // who may answer it, so a restored item is never anyone's).
    const written = await this.journal.writeCall(
      { ...this.journal.recordOf(p, 'parked', 0, approval === undefined ? answer : { ...answer, approval }), inboxId },
      expected,
    );
    if (!written) return this.journal.journaledAnswer(p.run, p.call, p.arguments);
    if (expected === undefined) this.outcomes.called(p, p.decision);
    const item = this.inboxItem(
      inboxId,
      kind,
      reason,
      p,
      mergeLabels(p.valueLabels ?? p.labels, labels),
      p.budgetUsd,
      detail,
    );
    // An approval keeps the tool's schema, so a person's changed arguments can be checked on any node; and
    // who may answer it, and whom it was asked for, so every door holds answers to the same rule.
    await this.store.putInboxItem({
      ...item,
      ...(kind === 'approval' ? { inputSchema: p.entry.tool.inputSchema } : {}),
      ...(answerers === undefined ? {} : { answerers }),
      ...(p.requester === undefined ? {} : { requester: p.requester }),
      ...(decidedBy === undefined ? {} : { decidedBy }),
    });
    this.outcomes.parked(p, inboxId, kind, reason, p.spent.microUsd);
    return answer;
  }

  private inboxItem(
    id: string,
    kind: ParkedKind,
    reason: string,
    call: CallRef & { readonly arguments: unknown },
    labels: readonly string[],
    budgetUsd: number | undefined,
    detail?: unknown,
  ): InboxRecord {
    return {
      id,
      kind,
      status: 'pending',
      agent: call.agent,
      run: call.run,
      call: call.call,
      tool: call.tool,
      arguments: call.arguments,
      digest: argumentsDigest(call.arguments),
      labels,
      reason,
      createdAt: this.clock.now(),
      ...(budgetUsd === undefined ? {} : { budgetUsd }),
      ...(detail === undefined ? {} : { detail }),
    };
  }

  /** Puts back the inbox item of a parked call that a crash lost (see `RecoveryHost`). */
  async restoreInboxItem(record: CallRecord): Promise<void> {
    if (record.answer?.status !== 'parked' || record.inboxId === undefined) return;
    const { answerers, requester, decidedBy } = record.answer.approval ?? {};
    await this.store.putInboxItem({
      ...this.inboxItem(
        record.inboxId,
        record.answer.kind,
        record.answer.reason,
        record,
        record.answer.labels,
        undefined,
        record.answer.detail,
      ),
      ...(answerers === undefined ? {} : { answerers: answerers as Answerers }),
      ...(requester === undefined ? {} : { requester }),
      ...(decidedBy === undefined ? {} : { decidedBy }),
    });
  }

  /**
   * Writes a final answer for a parked call without running it (a person denied or answered it).
   * Returns the answer, or throws a `StoreError` when the journal cannot be written.
   */
  async answerWithoutRunning(base: CallRef, answer: ToolAnswer, expected: CallState | undefined): Promise<ToolAnswer> {
    const previous = await this.store.getCall(base.run, base.call);
    const state = answer.status === 'ok' ? 'succeeded' : 'failed';
    const updatedAt = this.clock.now();
    // The parked entry's arguments, key, attempt and cost stay: only its outcome changes.
    const { inboxId: _parkedOn, ...kept } = previous ?? {
      arguments: null,
      idempotencyKey: `${base.run}:${base.call}`,
      attempt: 0,
    };
    const record: CallRecord = { ...kept, ...base, state, answer, updatedAt };
    if (!(await writeCall(this.store, record, expected))) return this.journal.journaledAnswer(base.run, base.call);
    await this.outcomes.addLabels(base, answer.labels);
    this.outcomes.settled(base, answer, record.attempt, undefined, 0, true);
    return answer;
  }
}
