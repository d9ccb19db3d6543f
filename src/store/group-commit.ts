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
 */
export class GroupCommit<W, R> {
  private waiting: Waiting<W, R>[] = [];
  private scheduled = false;
  private inFlight = 0;
  private readonly idle: (() => void)[] = [];

  constructor(
    private readonly commit: (batches: readonly (readonly W[])[]) => BatchOutcome<R>[] | Promise<BatchOutcome<R>[]>,
    private readonly maxInFlight = 1,
  ) {}

  add(writes: readonly W[]): Promise<R[]> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ writes, resolve, reject });
      // After this turn's I/O callbacks and timers: every batch made ready meanwhile joins this commit.
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => {
          this.scheduled = false;
          this.flush();
        });
      }
    });
  }

  /**
   * Starts the commit of what waits now, if a commit may start. With a synchronous `commit` every waiting
   * batch is settled when this returns: a store calls it before it closes.
   */
  flush(): void {
    while (this.waiting.length > 0 && this.inFlight < this.maxInFlight) {
      const batches = this.waiting;
      this.waiting = [];
      let outcomes: BatchOutcome<R>[] | Promise<BatchOutcome<R>[]>;
      try {
        outcomes = this.commit(batches.map((batch) => batch.writes));
      } catch (error) {
        for (const batch of batches) batch.reject(error);
        continue;
      }
      if (!(outcomes instanceof Promise)) {
        settle(batches, outcomes);
        continue;
      }
      this.inFlight++;
      void outcomes
        .then(
          (answered) => settle(batches, answered),
          (error: unknown) => {
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
