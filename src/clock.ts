/** Where Wardrik reads the time; replace it (token `Tokens.Clock`) to control time in tests. */
export interface Clock {
  now(): number;
}

/** A timer that was set: `cancel` stops it if it has not fired yet, and does nothing after. */
export interface Timer {
  cancel(): void;
  /**
   * Changes whether the timer alone keeps the process alive (see `TimerOptions.background`), for a timer
   * kept set across idle spells. Timers with no process to keep alive (manual time) need not have it.
   */
  setBackground?(background: boolean): void;
}

/** How a timer is set. */
export interface TimerOptions {
  /**
   * Housekeeping (lease renewals, reconciling, idle windows): the timer alone never keeps the process alive.
   * A timer a caller awaits (a retry's backoff, a call's deadline) keeps it alive until it fires.
   */
  readonly background?: boolean;
}

/**
 * Where Wardrik sets its timers: retry backoff, deadlines, lease renewals, idle windows, waits for a person's
 * answer, sign-in and question expiry. Replace it (token `Tokens.Timers`) together with the clock to move
 * time by hand in tests: `manualTime()` from `wardrik/testing` is both.
 */
export interface Timers {
  /** Calls `fire` once, `ms` milliseconds from now on the matching clock (at once for 0 or less). */
  after(ms: number, fire: () => void, options?: TimerOptions): Timer;
}

/** The longest wait a Node timer takes (2^31 - 1 ms, about 24.8 days); a longer one fires at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

export const systemClock: Clock = Object.freeze({ now: () => Date.now() });

/** Node's own timers; waits past `MAX_TIMER_MS` are capped there rather than firing at once. */
export const systemTimers: Timers = Object.freeze({
  after(ms: number, fire: () => void, options?: TimerOptions): Timer {
    const handle = setTimeout(fire, Math.min(MAX_TIMER_MS, Math.max(0, ms)));
    if (options?.background === true) handle.unref();
    return {
      cancel: () => clearTimeout(handle),
      setBackground: (background) => void (background ? handle.unref() : handle.ref()),
    };
  },
});

/**
 * Waits `ms` on `timers`; rejects with the signal's reason if `signal` aborts first (the timer is cancelled).
 */
export function delay(timers: Timers, ms: number, signal?: AbortSignal, options?: TimerOptions): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted === true) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      timer.cancel();
      reject(signal?.reason);
    };
    const timer = timers.after(
      ms,
      () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      },
      options,
    );
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Calls `fire` every `ms` milliseconds on `timers` until the returned timer is cancelled. */
export function every(timers: Timers, ms: number, fire: () => void, options?: TimerOptions): Timer {
  let cancelled = false;
  let current: Timer;
  const arm = (): void => {
    current = timers.after(
      ms,
      () => {
        if (cancelled) return;
        arm();
        fire();
      },
      options,
    );
  };
  arm();
  return {
    cancel: () => {
      cancelled = true;
      current.cancel();
    },
  };
}
