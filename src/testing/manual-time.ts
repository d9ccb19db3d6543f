import type { Clock, Timer, TimerOptions, Timers } from '../clock.js';

interface Pending {
  readonly at: number;
  readonly order: number;
  readonly fire: () => void;
}

/**
 * A clock and timers that move only when a test says so: pass it as both `Tokens.Clock` and `Tokens.Timers`
 * (or as a store's or server's `clock` and `timers`). `advance(ms)` fires every timer that falls due, in the
 * order of their times (ties in the order they were set), letting promises settle after each, so a timer
 * set by another timer's work fires in the same advance if it falls due within it.
 */
export class ManualTime implements Clock, Timers {
  private time: number;
  private queue: Pending[] = [];
  private count = 0;

  constructor(start = 0) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  after(ms: number, fire: () => void, _options?: TimerOptions): Timer {
    const entry: Pending = { at: this.time + Math.max(0, ms), order: this.count++, fire };
    this.queue.push(entry);
    return {
      cancel: () => {
        this.queue = this.queue.filter((pending) => pending !== entry);
      },
    };
  }

  /** Timers set and not yet fired or cancelled. */
  get pending(): number {
    return this.queue.length;
  }

  /** Moves time on by `ms`, firing what falls due on the way. */
  async advance(ms: number): Promise<void> {
    const end = this.time + Math.max(0, ms);
    await settle();
    for (;;) {
      const next = this.earliest();
      if (next === undefined || next.at > end) break;
      this.queue = this.queue.filter((pending) => pending !== next);
      this.time = Math.max(this.time, next.at);
      next.fire();
      await settle();
    }
    this.time = end;
    await settle();
  }

  private earliest(): Pending | undefined {
    let best: Pending | undefined;
    for (const pending of this.queue) {
      if (best === undefined || pending.at < best.at || (pending.at === best.at && pending.order < best.order))
        best = pending;
    }
    return best;
  }
}

/** `new ManualTime(start)`: time that moves only when told. */
export function manualTime(start = 0): ManualTime {
  return new ManualTime(start);
}

/** Lets pending promise callbacks and I/O callbacks queued so far run. */
function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
