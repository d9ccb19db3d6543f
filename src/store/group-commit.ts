import { journalCommitDuration } from '../telemetry/journal-metrics.js';

/** What one caller's batch came to in a shared commit: its own results, or the error that failed it. */
export type BatchOutcome<R> = { readonly results: R[] } | { readonly error: unknown };

/**
 * Commits the batches of writes that callers hand in during the same turn of the event loop together,
 * so many runs writing at once pay one commit (one WAL append, one round trip) between them rather than
 * one each.
 *
 * What a caller sees does not change: its promise resolves with its own batch's results once the shared
 * commit is durable, and rejects if its own batch failed. `commit` answers each batch on its own: a batch
 * that fails is undone alone (a savepoint, or a statement of its own), and the others' results stand.
 * When the commit itself fails, nothing of it was kept, and every batch in it rejects with that error.
 *
 * At most `maxInFlight` commits run at once (an asynchronous store's); batches handed in meanwhile wait
 * and go together in the next one. Batches join in the order they were handed in.
 *
 * When the commit starts. Without `writerOf`, on the event loop's next turn (`setImmediate`), after this
 * turn's I/O callbacks and timers, so every batch made ready meanwhile joins. With it, a store whose
 * commit is synchronous starts the commit as soon as this turn's promise jobs are done (a microtask)
 * while one writer (a run) writes alone: one run's commits follow one another, each awaited before the
 * next is made, and a wait for the loop's next turn cost each of them more than a small commit itself
 * (bench/journal-service.bench.ts). Once batches of two writers commit in the same turn of the loop, the
 * writers are taken to be many, and until that turn ends batches wait for the next one again, joining
 * whatever other callbacks make ready meanwhile.
 */
export class GroupCommit<W, R> {
  private waiting: Waiting<W, R>[] = [];
  private scheduled = false;
  private inFlight = 0;
  private readonly idle: (() => void)[] = [];
  /** The writer whose batches alone have committed in this turn of the event loop, if any. */
  private writerThisTurn: unknown = NO_WRITER;
  /** Batches of more than one writer committed in this turn of the event loop. */
  private manyWriters = false;
  private readonly startFlush = (): void => {
    this.scheduled = false;
    this.flush();
  };

  constructor(
    private readonly commit: (batches: readonly (readonly W[])[]) => BatchOutcome<R>[] | Promise<BatchOutcome<R>[]>,
    private readonly maxInFlight = 1,
    /** Who a batch is from (its run); given, a lone writer's batches commit without waiting for the loop. */
    private readonly writerOf?: (writes: readonly W[]) => unknown,
    /** The store, as `wardrik.journal.commit.duration` names it. */
    private readonly store = 'sqlite',
  ) {}

  add(writes: readonly W[]): Promise<R[]> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ writes, resolve, reject });
      if (this.scheduled) return;
      this.scheduled = true;
      if (this.writerOf === undefined || this.manyWriters) setImmediate(this.startFlush);
      else queueMicrotask(this.startFlush);
    });
  }

  /** Notes whose batches a commit carries: two writers in one turn of the loop make its batches wait for the next. */
  private noteWriters(batches: readonly Waiting<W, R>[]): void {
    if (this.writerOf === undefined) return;
    if (this.writerThisTurn === NO_WRITER) {
      this.writerThisTurn = this.writerOf(batches[0]!.writes);
      // At the loop's next turn, before the batches this one defers to it (scheduled after this).
      setImmediate(() => {
        this.writerThisTurn = NO_WRITER;
        this.manyWriters = false;
      });
    }
    if (this.manyWriters) return;
    for (const batch of batches) if (this.writerOf(batch.writes) !== this.writerThisTurn) this.manyWriters = true;
  }

  /**
   * Starts the commit of what waits now, if a commit may start. With a synchronous `commit` every waiting
   * batch is settled when this returns: a store calls it before it closes.
   */
  flush(): void {
    while (this.waiting.length > 0 && this.inFlight < this.maxInFlight) {
      const batches = this.waiting;
      this.waiting = [];
      this.noteWriters(batches);
      const timing = journalCommitDuration();
      const start = timing === undefined ? 0 : performance.now();
      const timed = (outcome: 'ok' | 'failed'): void =>
        timing?.record((performance.now() - start) / 1000, { 'wardrik.store': this.store, 'wardrik.outcome': outcome });
      let outcomes: BatchOutcome<R>[] | Promise<BatchOutcome<R>[]>;
      try {
        outcomes = this.commit(batches.map((batch) => batch.writes));
      } catch (error) {
        timed('failed');
        for (const batch of batches) batch.reject(error);
        continue;
      }
      if (!(outcomes instanceof Promise)) {
        timed('ok');
        settle(batches, outcomes);
        continue;
      }
      this.inFlight++;
      void outcomes
        .then(
          (answered) => {
            timed('ok');
            settle(batches, answered);
          },
          (error: unknown) => {
            timed('failed');
            for (const batch of batches) batch.reject(error);
          },
        )
        .finally(() => {
          this.inFlight--;
          this.flush();
          if (this.inFlight === 0 && this.waiting.length === 0) for (const wake of this.idle.splice(0)) wake();
        });
    }
  }

  /** Resolves once nothing waits and no commit is in flight: a store awaits it before it closes. */
  async drained(): Promise<void> {
    this.flush();
    if (this.inFlight === 0 && this.waiting.length === 0) return;
    await new Promise<void>((wake) => this.idle.push(wake));
  }
}

const NO_WRITER = Symbol('no writer');

interface Waiting<W, R> {
  readonly writes: readonly W[];
  readonly resolve: (results: R[]) => void;
  readonly reject: (error: unknown) => void;
}

function settle<W, R>(batches: readonly Waiting<W, R>[], outcomes: readonly BatchOutcome<R>[]): void {
  batches.forEach((batch, i) => {
    const outcome = outcomes[i]!;
    if ('results' in outcome) batch.resolve(outcome.results);
    else batch.reject(outcome.error);
  });
}
