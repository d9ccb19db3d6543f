/**
 * A queue of passes (recovery, retention) that runs them one at a time. Asked while a pass runs, it answers with the next pass,
 * which starts once the current one ends; everyone who asks meanwhile shares that one. So a caller's
 * pass always starts after it asked (it sees what was journaled before), and passes never overlap:
 * an overlapping pass would take the calls the running one is still working on for crashed ones.
 */
export class PassQueue<T> {
  private current: Promise<T> | undefined;
  private next: Promise<T> | undefined;

  constructor(private readonly pass: () => Promise<T>) {}

  run(): Promise<T> {
    // Guard (serial-recovery): passes never overlap; one asked for meanwhile starts after.
    if (this.current === undefined) return this.start();
    this.next ??= this.current.then(settled, settled).then(() => {
      this.next = undefined;
      return this.start();
    });
    return this.next;
  }

  /** Resolves once the pass under way, and the one asked for next, if any, have ended. */
  async stop(): Promise<void> {
    while (this.current !== undefined || this.next !== undefined)
      await (this.next ?? this.current)!.then(settled, settled);
  }

  private start(): Promise<T> {
    const current = this.pass();
    this.current = current;
    const done = (): void => {
      if (this.current === current) this.current = undefined;
    };
    current.then(done, done);
    return current;
  }
}

function settled(): void {}
