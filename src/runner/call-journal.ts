import type { Clock } from '../clock.js';
import { ConflictError } from '../errors.js';
import type { Decision } from '../policy/policy.js';
import type { CallRecord, CallState, Store, SyncJournal } from '../store/store.js';
import { writeCall } from '../store/journal-writes.js';
import { journaledArguments } from '../tools/arguments.js';
import { errorAnswer, type ToolAnswer } from '../tools/result.js';
import { toUsd } from '../money.js';
import { storeFailure, type CallRef } from './call-failures.js';
import type { CallOutcomes } from './call-outcomes.js';
import { argumentsDigest } from './digest.js';
import type { JournalBatch } from './journal-batch.js';
import { type Mutable, type PreparedCall } from './prepared-call.js';
import { then } from './maybe.js';

/**
 * A call's entry in the journal: written `started` before each attempt, then with its answer. Every
 * write is a compare-and-set on the state the runner expects; a write that finds another state lost a
 * race, and the answer is then what the winner recorded.
 */
export class CallJournal {
  /** The store's journal without promises, when its writes are synchronous (see `Store.sync`). */
  private readonly sync: SyncJournal | undefined;
  /** The runs whose calls' writes are committed with what their caller holds (an agent's turn; see `JournalBatch`). */
  private readonly batches = new Map<string, JournalBatch>();

  constructor(
    private readonly store: Store,
    private readonly outcomes: CallOutcomes,
    private readonly clock: Clock,
  ) {
    this.sync = store.sync;
  }

  /** Journals a call that ends before it runs (unknown tool, bad arguments, denied, budget). */
  async writeNotRun(base: CallRef, args: unknown, answer: ToolAnswer, decision?: Decision): Promise<ToolAnswer> {
    // Arguments over the limits are journaled as a note, never whole (see journaledArguments).
    const journaled = journaledArguments(args ?? null);
    const record: CallRecord = {
      ...base,
      arguments: journaled,
      idempotencyKey: `${base.run}:${base.call}`,
      state: 'failed',
      attempt: 0,
      answer,
      ...(decision === undefined ? {} : { decidedBy: decision.rule }),
      updatedAt: this.clock.now(),
    };
    let written: boolean;
    try {
      written = await this.writeCall(record, undefined);
    } catch (error) {
      if (error instanceof ConflictError) throw error;
      throw storeFailure(base, 'write its answer to the journal', error);
    }
    if (!written) return this.journaledAnswer(base.run, base.call, journaled);
    this.outcomes.called(base, decision);
    this.outcomes.settled(base, answer, 0, undefined, 0, false);
    return answer;
  }

  /**
   * Journals `started` (attempt `attempt`) before the attempt runs; a store that fails stops the call.
   * Not an async function: on every call's path, its frame would cost more than the write.
   */
  writeStarted(p: PreparedCall, attempt: number, expected: CallState | undefined): boolean | Promise<boolean> {
    const failed = (error: unknown): never => {
      if (error instanceof ConflictError) throw error;
      throw storeFailure(p, 'write it to the journal as started', error);
    };
    try {
      const written = this.writeCall(this.recordOf(p, 'started', attempt, undefined), expected);
      return written instanceof Promise ? written.catch(failed) : written;
    } catch (error) {
      return failed(error);
    }
  }

  /**
   * A call's journal write, without a promise when the store's writes are synchronous; in the same
   * transaction as what the run's batch holds, when it has one.
   */
  writeCall(record: CallRecord, expected: CallState | undefined): boolean | Promise<boolean> {
    const batch = this.batchOf(record.run);
    if (batch !== undefined) {
      const written = batch.write([{ call: record, expected }]);
      return then(written, (each) => each[0]!);
    }
    return this.sync !== undefined ? this.sync.writeCall(record, expected) : writeCall(this.store, record, expected);
  }

  /** Commits the writes of `run`'s calls with what `batch` holds, from now on; `undefined` stops it. */
  batchWith(run: string, batch: JournalBatch | undefined): void {
    if (batch === undefined) this.batches.delete(run);
    else this.batches.set(run, batch);
  }

  /** The run's labels as the store has them (`stored`), with those its batch holds for the next commit. */
  withHeldLabels(
    run: string,
    stored: readonly string[] | Promise<readonly string[]>,
  ): readonly string[] | Promise<readonly string[]> {
    const held = this.batchOf(run)?.heldLabels(run);
    if (held === undefined || held.length === 0) return stored;
    const join = (labels: readonly string[]): readonly string[] => [...new Set([...labels, ...held])];
    return then(stored, join);
  }

  /**
   * Whether the call's answer is held in its run's batch, not yet durable: it counts as running here,
   * so recovery leaves it alone.
   */
  holdsAnswer(run: string, call: string): boolean {
    return this.batchOf(run)?.holdsCall(call) === true;
  }

  /** The batch `run`'s calls' writes go with, if any. */
  batchOf(run: string): JournalBatch | undefined {
    return this.batches.size === 0 ? undefined : this.batches.get(run);
  }

  recordOf(p: PreparedCall, state: CallState, attempt: number, answer: ToolAnswer | undefined): CallRecord {
    const { run, call, agent, tool, arguments: args, idempotencyKey } = p;
    // Guard (decided-by-journaled): every write of a call keeps the rule or policy that decided it.
    const decidedBy = p.decidedBy;
    const updatedAt = this.clock.now();
    // Whole literals rather than fields added afterwards: a memory store keeps every record, and an
    // added field costs each of them a second allocation (only a call that reported a cost gets one).
    // Tried (one literal, `answer` and `decidedBy` assigned after): bench/runner's no-DTO call took a median
    // 26 µs against 16 µs over 16 interleaved pairs, run either way round; so the four literals stay.
    const record: Mutable<CallRecord> =
      decidedBy === undefined
        ? answer === undefined
          ? { run, call, agent, tool, arguments: args, idempotencyKey, state, attempt, updatedAt }
          : { run, call, agent, tool, arguments: args, idempotencyKey, state, attempt, answer, updatedAt }
        : answer === undefined
          ? { run, call, agent, tool, arguments: args, idempotencyKey, state, attempt, decidedBy, updatedAt }
          : { run, call, agent, tool, arguments: args, idempotencyKey, state, attempt, answer, decidedBy, updatedAt };
    if (p.spent.microUsd > 0) record.costUsd = toUsd(p.spent.microUsd);
    return record;
  }

  /** Someone else changed the call's state first: answer with what they recorded. */
  async journaledAnswer(run: string, call: string, args?: unknown): Promise<ToolAnswer> {
    const record = await this.store.getCall(run, call);
    if (record === undefined)
      return errorAnswer('conflict', `Call "${call}" is being handled elsewhere; wait for its answer.`);
    return recordedAnswer(record, args);
  }
}

/** A journaled call asked for again: the same arguments get its answer; others get a conflict. */
export function recordedAnswer(record: CallRecord, args: unknown): ToolAnswer {
  // A call a person approved with changed arguments answers the arguments the model sent too.
  const sent = record.answer?.status === 'parked' ? undefined : record.answer?.edited?.original;
  const other = (value: unknown): boolean => argumentsDigest(args) !== argumentsDigest(value);
  const changed =
    args !== undefined && record.arguments !== null && other(record.arguments) && (sent === undefined || other(sent));
  // Guard (same-arguments-same-call): a call id sent again with other arguments is a conflict.
  if (changed) {
    return errorAnswer(
      'conflict',
      `Call "${record.call}" was already made with other arguments; use a new call id for a new call.`,
    );
  }
  if (record.answer !== undefined) return withoutApproval(record.answer);
  return errorAnswer(
    'conflict',
    `Call "${record.call}" is already running; wait for its answer instead of calling again.`,
  );
}

/**
 * A parked answer as its caller got it: `approval` (who may answer, the requester, what decided) is the journal's,
 * kept so recovery can rebuild the inbox item, never part of the answer a caller is given.
 */
function withoutApproval(answer: ToolAnswer): ToolAnswer {
  if (answer.status !== 'parked' || !('approval' in answer)) return answer;
  const { approval: _kept, ...given } = answer as ToolAnswer & { readonly approval?: unknown };
  return given as ToolAnswer;
}
