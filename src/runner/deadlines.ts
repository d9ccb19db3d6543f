import type { Clock, Timer, Timers } from '../clock.js';

/** A call's time-out, from `Deadlines.add`. */
export interface Deadline {
  readonly at: number;
  /** Set once it has expired or been cancelled. */
  done: boolean;
  readonly expire: () => void;
  /** The queue of its duration. */
  readonly queue: Queue;
}

/**
 * The time-outs of the attempts in flight, on one timer. A Node timer per attempt costs about a
 * microsecond to set and clear, more than the rest of a fast call, and more again when calls come one
 * at a time (Node then drops and remakes its list for that duration on each). Attempts with the same
 * time-out expire in the order they start, so each duration keeps a first-in first-out queue, and one
 * timer waits for the earliest head among them. The timer keeps the process alive only while some
 * deadline is pending, as a timer per attempt would.
 */
export class Deadlines {
  private readonly queues = new Map<number, Queue>();
  private timer: Timer | undefined;
  /** When the timer fires; it may fire early (its deadline was cancelled), then it waits again. */
  private timerAt = Infinity;
  private pending = 0;

  constructor(
    private readonly clock: Clock,
    private readonly timers: Timers,
  ) {}

  /** Calls `expire` in `ms` milliseconds unless `cancel` is called first. */
  add(ms: number, expire: () => void): Deadline {
    let queue = this.queues.get(ms);
    if (queue === undefined) this.queues.set(ms, (queue = new Queue()));
    const deadline: Deadline = { at: this.clock.now() + ms, done: false, expire, queue };
    queue.push(deadline);
    if (this.pending++ === 0) this.timer?.setBackground?.(false);
    if (deadline.at < this.timerAt) this.wake(deadline.at);
    return deadline;
  }

  /** The attempt ended in time: its deadline will not expire. */
  cancel(deadline: Deadline): void {
    if (deadline.done) return;
    deadline.done = true;
    if (--this.pending === 0) this.timer?.setBackground?.(true);
    // Attempts mostly end in the order they started: dropping ended ones from the head keeps queues short.
    deadline.queue.dropDone();
  }

  private wake(at: number): void {
    this.timer?.cancel();
    this.timerAt = at;
    // Waking early (a cancelled deadline, or a wait capped at Node's longest) just waits again.
    this.timer = this.timers.after(at - this.clock.now(), () => this.fire(), { background: this.pending === 0 });
  }

  private fire(): void {
    this.timer = undefined;
    this.timerAt = Infinity;
    const now = this.clock.now();
    const expired: Deadline[] = [];
    let next = Infinity;
    for (const [ms, queue] of this.queues) {
      for (let head = queue.head(); head !== undefined && head.at <= now; head = queue.head()) {
        queue.shift();
        if (head.done) continue;
        head.done = true;
        this.pending--;
        expired.push(head);
      }
      queue.dropDone();
      const head = queue.head();
      if (head === undefined) this.queues.delete(ms);
      else next = Math.min(next, head.at);
    }
    if (next !== Infinity) this.wake(next);
    for (const deadline of expired) deadline.expire();
  }
}

/** A first-in first-out queue on an array, compacted now and then. */
class Queue {
  private items: Deadline[] = [];
  private start = 0;

  push(deadline: Deadline): void {
    this.items.push(deadline);
  }

  head(): Deadline | undefined {
    return this.items[this.start];
  }

  shift(): void {
    this.items[this.start++] = undefined as never;
    if (this.start === this.items.length) {
      this.items = [];
      this.start = 0;
    } else if (this.start >= 1024 && this.start * 2 >= this.items.length) {
      this.items = this.items.slice(this.start);
      this.start = 0;
    }
  }

  /** Drops ended deadlines from the head. */
  dropDone(): void {
    while (this.head()?.done === true) this.shift();
  }
}
