/**
 * Commits together the batches of writes that become ready in the same turn of the event loop: many
 * runs writing at once pay one commit (one WAL sync) between them rather than one each. A batch's
 * promise resolves with its own results once the shared transaction has committed, or rejects with its
 * error (then every batch in it failed: nothing of the transaction was kept).
 */
export class GroupCommit<W, R> {
  private pending: { readonly writes: readonly W[]; readonly resolve: (results: R[]) => void; readonly reject: (error: unknown) => void }[] = [];

  /** `commit` writes everything it is given in one transaction and answers each write, in order. */
  constructor(private readonly commit: (writes: readonly W[]) => R[]) {}

  add(writes: readonly W[]): Promise<R[]> {
    return new Promise((resolve, reject) => {
      // After the I/O and timers of this turn: every batch made ready meanwhile joins this commit.
      if (this.pending.length === 0) setImmediate(() => this.flush());
      this.pending.push({ writes, resolve, reject });
    });
  }

  private flush(): void {
    const batches = this.pending;
    this.pending = [];
    let results: R[];
    try {
      results = this.commit(batches.length === 1 ? batches[0]!.writes : batches.flatMap((batch) => batch.writes));
    } catch (error) {
      for (const batch of batches) batch.reject(error);
      return;
    }
    let at = 0;
    for (const batch of batches) batch.resolve(results.slice(at, (at += batch.writes.length)));
  }
}
