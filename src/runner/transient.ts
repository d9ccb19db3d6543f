import { delay, type Timers } from '../clock.js';
import { WardrikError } from '../errors.js';

/** Socket errors that mean the connection dropped or never formed (UND_ERR_SOCKET: fetch's): the service may answer next time. */
const DROPPED = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'UND_ERR_SOCKET']);

/**
 * Whether a failure is transient, so that a repeatable call may be tried again: `UnavailableError`, a
 * time-out, or a dropped connection anywhere in the error's cause chain. A tool's own error is not.
 */
export function isTransient(error: unknown): boolean {
  for (let current = error, depth = 0; current !== null && typeof current === 'object' && depth < 8; depth++) {
    if (current instanceof WardrikError && (current.code === 'unavailable' || current.code === 'timeout')) return true;
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && DROPPED.has(code)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** Resolves true after `ms` on `timers`, or false as soon as `signal` aborts: the wait between two attempts. */
export function sleep(timers: Timers, ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  return delay(timers, ms, signal).then(
    () => true,
    () => false,
  );
}

/**
 * The wait before try `failures + 1` (a call's retry, a model call's, a reconnection): exponential
 * from `baseDelayMs`, capped at `maxDelayMs`, with equal jitter (half the step fixed, half random) so
 * that what failed together is not all tried again at the same moment.
 */
export function backoffDelay(failures: number, baseDelayMs: number, maxDelayMs: number, random: () => number): number {
  const step = Math.min(maxDelayMs, baseDelayMs * 2 ** Math.min(Math.max(failures, 1) - 1, 30));
  return Math.round(step / 2 + random() * (step / 2));
}
