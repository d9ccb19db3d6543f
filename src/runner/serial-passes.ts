import type { Timer, Timers } from '../clock.js';

/**
 * Runs a pass (a recovery) one at a time. Asked while a pass runs, it answers with the next pass,
 * which starts once the current one ends; everyone who asks meanwhile shares that one. So a caller's
 * pass always starts after it asked (it sees what was journaled before), and passes never overlap:
 * an overlapping pass would take the calls the running one is still working on for crashed ones.
 */
export class SerialPasses<T> {
  private current: Promise<T> | undefined;
  private next: Promise<T> | undefined;
  private timer: Timer | undefined;
  private stopped = false;

  constructor(
    private readonly timers: Timers,
    private readonly pass: () => Promise<T>,
  ) {}

  run(): Promise<T> {
    if (this.current === undefined) return this.start();
    this.next ??= this.current.then(settled, settled).then(() => {
      this.next = undefined;
      return this.start();
    });
    return this.next;
  }

  /**
   * Runs a pass `ms` after the last one ended, until `stop()`: a slow pass delays the next rather than
   * overlapping it. A failed pass goes to `onError`, and the next is still scheduled.
   */
  every(ms: number, onError: (error: unknown) => void): void {
    if (this.stopped || ms === Infinity) return;
    this.timer = this.timers.after(
      ms,
      () => {
        this.timer = undefined;
        this.run()
          .then(settled, onError)
          .finally(() => this.every(ms, onError));
      },
      { background: true },
    );
  }

  /** Schedules no more passes; resolves once the pass under way, if any, has ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = undefined;
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
