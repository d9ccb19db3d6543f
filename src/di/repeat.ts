import type { Timer, Timers } from '../clock.js';
import type { PassQueue } from '../runner/pass-queue.js';

/**
 * Runs a pass of `passes` `ms` after the last one ended, on `timers` (so an app's `Tokens.Timers` moves
 * Wardrik's recovery and retention too), until the returned function is called: a slow pass delays the
 * next rather than overlapping it, and a failed pass goes to `onError` with the next still set. The timer
 * is housekeeping: it never keeps the process alive. `Infinity` sets none.
 */
export function repeat<T>(
  passes: PassQueue<T>,
  timers: Timers,
  ms: number,
  onError: (error: unknown) => void,
): () => void {
  let stopped = false;
  let timer: Timer | undefined;
  const next = (): void => {
    if (stopped || ms === Infinity) return;
    timer = timers.after(ms, () => void passes.run().then(ignore, onError).finally(next), { background: true });
  };
  next();
  return () => {
    stopped = true;
    timer?.cancel();
  };
}

function ignore(): void {}
