import type { Clock } from '../clock.js';

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

/**
 * Slows guessing without locking anyone out. A credential is always checked, and a right one is let in
 * at once whatever its source did before: nothing here is asked about it. A wrong one is counted
 * against its source (the client's address), and past `free` in a minute its answer is held, longer
 * with each further wrong guess, up to `maxDelayMs`. A guesser pays with waiting (and with a connection
 * held per guess, which the server's connection cap bounds); someone sharing their address does not.
 */
export class GuessLimiter {
  private readonly sources = new Map<string, { since: number; count: number }>();
  private readonly holds = new Set<{ timer: NodeJS.Timeout; release: () => void }>();

  constructor(
    private readonly settings: GuessLimitSettings,
    private readonly clock: Clock,
  ) {}

  /** Counts a wrong guess from `source`; resolves when its answer may be sent. */
  wrong(source: string): Promise<void> {
    const now = this.clock.now();
    const previous = this.sources.get(source);
    const counted = previous === undefined || now - previous.since >= WINDOW_MS ? { since: now, count: 1 } : { since: previous.since, count: previous.count + 1 };
    this.sources.delete(source);
    if (this.sources.size >= MAX_SOURCES) this.sources.delete(this.sources.keys().next().value!);
    this.sources.set(source, counted);
    const past = counted.count - this.settings.free;
    if (past <= 0) return Promise.resolve();
    // 2 ** past grows past any delay after ~60 steps; the cap is reached long before.
    const hold = Math.min(this.settings.maxDelayMs, this.settings.delayMs * 2 ** Math.min(past - 1, 40));
    return new Promise((resolve) => {
      const entry = {
        timer: setTimeout(() => {
          this.holds.delete(entry);
          resolve();
        }, hold),
        release: resolve,
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
      clearTimeout(entry.timer);
      entry.release();
    }
    this.holds.clear();
  }
}
