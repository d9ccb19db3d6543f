import type { Socket } from 'node:net';
import type { Clock, Timer, Timers } from '../clock.js';

/** How wrong credentials from one source are slowed. */
export interface GuessLimitSettings {
  /** Wrong guesses per source per minute answered at once. */
  readonly free: number;
  /** The hold of the first wrong guess past `free`; each further one in the minute doubles it. */
  readonly delayMs: number;
  /** The longest hold. */
  readonly maxDelayMs: number;
}

const WINDOW_MS = 60_000;
/** Sources remembered at once; past it the one counted longest ago is forgotten first. */
const MAX_SOURCES = 10_000;
/** Answers held at once, all sources together; past it a further wrong guess's connection is cut. */
const MAX_HOLDS = 1_000;

/**
 * Slows guessing without locking anyone out. A credential is always checked, and a right one is let in
 * at once whatever its source did before: nothing here is asked about it. A wrong one is counted
 * against its source (the client's address), and past `free` in a minute its answer is held, longer
 * with each further wrong guess, up to `maxDelayMs`. A guesser pays with waiting, and with a connection
 * per held guess: a wrong guess on a connection that already has one held (requests pipelined on one
 * connection are read at once: 3,000 were held side by side) cuts that connection, as does one past
 * `MAX_HOLDS`. Someone sharing the guesser's address pays nothing.
 */
export class GuessLimiter {
  private readonly sources = new Map<string, { since: number; count: number }>();
  private readonly holds = new Set<{ timer: Timer; release: () => void }>();
  private readonly heldConnections = new Set<Socket>();

  constructor(
    private readonly settings: GuessLimitSettings,
    private readonly clock: Clock,
    private readonly timers: Timers,
  ) {}

  /** Counts a wrong guess from `source` on `connection`; resolves when its answer may be sent (or its connection was cut). */
  wrong(source: string, connection: Socket): Promise<void> {
    const now = this.clock.now();
    const previous = this.sources.get(source);
    const counted =
      previous === undefined || now - previous.since >= WINDOW_MS
        ? { since: now, count: 1 }
        : { since: previous.since, count: previous.count + 1 };
    this.sources.delete(source);
    if (this.sources.size >= MAX_SOURCES) this.sources.delete(this.sources.keys().next().value!);
    this.sources.set(source, counted);
    const past = counted.count - this.settings.free;
    if (past <= 0) return Promise.resolve();
    // 2 ** past grows past any delay after ~60 steps; the cap is reached long before.
    const hold = Math.min(this.settings.maxDelayMs, this.settings.delayMs * 2 ** Math.min(past - 1, 40));
    if (this.heldConnections.has(connection) || this.holds.size >= MAX_HOLDS) {
      connection.destroy();
      return Promise.resolve();
    }
    this.heldConnections.add(connection);
    return new Promise((resolve) => {
      const release = () => {
        this.heldConnections.delete(connection);
        resolve();
      };
      const entry = {
        timer: this.timers.after(hold, () => {
          this.holds.delete(entry);
          release();
        }),
        release,
      };
      this.holds.add(entry);
    });
  }

  /** Answers held now. */
  get held(): number {
    return this.holds.size;
  }

  /** Lets every held answer go (the server is closing). */
  close(): void {
    for (const entry of this.holds) {
      entry.timer.cancel();
      entry.release();
    }
    this.holds.clear();
  }
}
