import { ConflictError } from '../errors.js';
import type { JournalWrite, Store } from '../store/store.js';
import { errorAnswer } from '../tools/result.js';
import { then } from './maybe.js';

/** A write held for the next commit, and who waits to hear it was committed (`undefined`) or not. */
interface Held {
  readonly write: JournalWrite;
  /** False when it must be durable before the model sees answers (the answer of a call not safe to repeat). */
  readonly repeatable: boolean;
  readonly committed: ((error?: Error) => void) | undefined;
}

/** Writes of calls waiting for the coalesced commit of a group of calls started together. */
interface Queued {
  readonly writes: readonly JournalWrite[];
  readonly resolve: (results: boolean[]) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * @internal One run's journal writes, committed together: two commits per tool call. The
 * driver of an agent turn holds what must be durable no later than the run's next call write (its
 * model step before the step's calls start; its tools step), and the runner holds the answers of the
 * turn's new calls; the next write of a call of the run (`write`) commits them with it, in one
 * transaction, or the driver commits them itself (`flush`) before the model sees answers that are not
 * safe to repeat, and before the turn's record says where it stands.
 *
 * Ordering: commits are made one after another, so a write never becomes durable before a write held
 * earlier. A held write that is refused (its step or call was written by another node) means another
 * node drives the run: the calls written in the same commit are ended `failed` without running, and
 * the writers get a `ConflictError`. A commit that fails breaks the batch: every later write fails with
 * the same error, and nothing held before it is written (a crash at that point leaves the same journal).
 */
export class JournalBatch {
  private held: Held[] = [];
  private queued: Queued[] = [];
  /** Writers still expected before the queued writes commit (`expect`). */
  private waiting = 0;
  private scheduled = false;
  /** The last asynchronous commit: the next one starts after it. */
  private tail: Promise<unknown> = Promise.resolve();
  private brokenBy: Error | (() => Error) | undefined;

  constructor(private readonly store: Store) {}

  /** Whether something held must be committed before the model sees answers: the answer of a call not safe to repeat. */
  get mustCommit(): boolean {
    return this.held.some((held) => !held.repeatable);
  }

  /**
   * Holds `write` for the next commit. `committed` hears when it is durable (no argument) or will
   * not be (the error); `repeatable` false makes `mustCommit` true until then.
   */
  hold(write: JournalWrite, repeatable = true, committed?: (error?: Error) => void): void {
    if (this.broken !== undefined) {
      committed?.(this.broken);
      return;
    }
    this.held.push({ write, repeatable, committed });
  }

  /** The micro-dollars of `agent`'s spend held here, not committed yet. */
  heldSpend(agent: string): number {
    let microUsd = 0;
    for (const h of this.held)
      if ('spend' in h.write && h.write.spend.agent === agent) microUsd += h.write.spend.microUsd;
    return microUsd;
  }

  /** The labels held here for `run`, not committed yet. */
  heldLabels(run: string): readonly string[] {
    const labels: string[] = [];
    for (const h of this.held)
      if ('labels' in h.write && h.write.labels.run === run) labels.push(...h.write.labels.labels);
    return labels;
  }

  /** Whether the write of call `call` is held, not committed yet. */
  holdsCall(call: string): boolean {
    for (const h of this.held) if ('call' in h.write && h.write.call.call === call) return true;
    return false;
  }

  /**
   * `n` calls start together: their first writes are queued until all `n` came (or the event loop
   * turned once), then committed in one transaction with what is held.
   */
  expect(n: number): void {
    this.waiting = n;
  }

  /** Commits `writes` with everything held, answering each of `writes` as `Store.writeJournal` would; at once when the store is synchronous and no writer is awaited. */
  write(writes: readonly JournalWrite[]): boolean[] | Promise<boolean[]> {
    if (this.broken !== undefined) throw this.broken;
    if (this.waiting > 0) {
      this.waiting--;
      const queued = new Promise<boolean[]>((resolve, reject) => this.queued.push({ writes, resolve, reject }));
      // Each queued writer hears a failed commit through its own promise.
      if (this.waiting === 0) void Promise.resolve(this.commitQueued()).catch(() => undefined);
      else if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => void Promise.resolve(this.commitQueued()).catch(() => undefined));
      }
      return queued;
    }
    const results = this.commit([writes]);
    return then(results, (each) => each[0]!);
  }

  /** Commits what is held now (nothing to do when nothing is). */
  flush(): void | Promise<void> {
    if (this.broken !== undefined) return Promise.reject(this.broken);
    this.waiting = 0;
    if (this.queued.length > 0) return this.commitQueued();
    if (this.held.length === 0) return;
    const results = this.commit([]);
    return then(results, () => undefined);
  }

  /**
   * The turn ended without a commit for what is held: its writers hear it was not written (as if the
   * process had stopped here), and so does any later one. `reason` may be a function making the error,
   * so a turn that ends with nothing held (the usual end) makes none.
   */
  abandon(reason: Error | (() => Error)): void {
    this.brokenBy ??= reason;
    if (this.held.length === 0 && this.queued.length === 0) return;
    const held = this.held;
    this.held = [];
    const error = this.broken!;
    for (const h of held) h.committed?.(error);
    const queued = this.queued;
    this.queued = [];
    for (const q of queued) q.reject(error);
  }

  /** Why the batch takes no more writes, if it does not. */
  private get broken(): Error | undefined {
    if (typeof this.brokenBy === 'function') this.brokenBy = this.brokenBy();
    return this.brokenBy;
  }

  /** Commits the queued writers' writes, with what is held, and answers each; rejects when that commit failed. */
  private commitQueued(): void | Promise<void> {
    this.scheduled = false;
    this.waiting = 0;
    const queued = this.queued;
    this.queued = [];
    if (queued.length === 0) return;
    let results: boolean[][] | Promise<boolean[][]>;
    try {
      results = this.commit(queued.map((q) => q.writes));
    } catch (error) {
      for (const q of queued) q.reject(error);
      return Promise.reject(error as Error);
    }
    if (!(results instanceof Promise)) {
      queued.forEach((q, i) => q.resolve(results[i]!));
      return;
    }
    return results.then(
      (each) => queued.forEach((q, i) => q.resolve(each[i]!)),
      (error: unknown) => {
        for (const q of queued) q.reject(error);
        throw error;
      },
    );
  }

  /** One transaction: what is held, then each writer's writes; answers each writer with its own results. */
  private commit(writers: readonly (readonly JournalWrite[])[]): boolean[][] | Promise<boolean[][]> {
    const held = this.held;
    this.held = [];
    const all: JournalWrite[] = held.map((h) => h.write);
    for (const writes of writers) all.push(...writes);
    const sync = this.store.sync;
    if (sync?.writeJournal !== undefined) {
      let results: boolean[];
      try {
        results = sync.writeJournal(all);
      } catch (error) {
        this.failed(held, error as Error);
        throw error;
      }
      const conflict = this.refused(held, results);
      if (conflict === undefined) return this.answered(held, writers, results);
      return this.endCalls(all, results, held.length, conflict).then(() => Promise.reject(conflict));
    }
    const answered = this.tail
      .then(() => this.store.writeJournal(all))
      .then(
        async (results) => {
          const conflict = this.refused(held, results);
          if (conflict === undefined) return this.answered(held, writers, results);
          await this.endCalls(all, results, held.length, conflict);
          throw conflict;
        },
        (error: unknown) => {
          this.failed(held, error as Error);
          throw error;
        },
      );
    this.tail = answered.catch(() => undefined);
    return answered;
  }

  private answered(
    held: readonly Held[],
    writers: readonly (readonly JournalWrite[])[],
    results: readonly boolean[],
  ): boolean[][] {
    for (const h of held) h.committed?.();
    let at = held.length;
    return writers.map((writes) => results.slice(at, (at += writes.length)));
  }

  /** The store failed: nothing of this commit was written, and the batch is broken. */
  private failed(held: readonly Held[], error: Error): void {
    this.abandon(error);
    for (const h of held) h.committed?.(error);
  }

  /** A held write the store refused: another node drives the run. The batch is broken and its holders told. */
  private refused(held: readonly Held[], results: readonly boolean[]): ConflictError | undefined {
    const lost = held.findIndex((_, i) => results[i] !== true);
    if (lost < 0) return undefined;
    const write = held[lost]!.write;
    const conflict = new ConflictError(
      'taken_over',
      'step' in write
        ? { run: write.step.run, step: write.step.index }
        : 'call' in write
          ? { run: write.call.run, call: write.call.call }
          : 'turn' in write
            ? { run: write.turn.run }
            : {},
      'step' in write
        ? `Run "${write.step.run}" already has step ${write.step.index} in its journal: another node is driving its turn. This node stopped; the other one goes on.`
        : 'call' in write
          ? `Call "${write.call.call}" of run "${write.call.run}" was changed in the journal by another node, which drives the run now. This node stopped; the other one goes on.`
          : 'turn' in write
            ? `Turn "${write.turn.run}" was changed by another node while this one drove it; this node stopped.`
            : "The store refused a write of the turn's journal. This node stopped.",
    );
    this.abandon(conflict);
    held.forEach((h, i) => h.committed?.(results[i] === true ? undefined : conflict));
    return conflict;
  }

  /** Calls this commit wrote `started` in a run another node drives: ended without running, so no recovery runs them. */
  private async endCalls(
    all: readonly JournalWrite[],
    results: readonly boolean[],
    from: number,
    conflict: ConflictError,
  ): Promise<void> {
    const ends: JournalWrite[] = [];
    for (let i = from; i < all.length; i++) {
      const write = all[i]!;
      if (results[i] === true && 'call' in write && write.call.state === 'started') {
        ends.push({
          call: {
            ...write.call,
            state: 'failed',
            answer: errorAnswer('conflict', `${conflict.message} The call did not run.`),
          },
          expected: 'started',
        });
      }
    }
    if (ends.length > 0) await this.store.writeJournal(ends).catch(() => undefined);
  }
}
