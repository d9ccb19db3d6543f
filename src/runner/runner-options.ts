import { MAX_TIMER_MS } from '../clock.js';
import { ConfigurationError } from '../errors.js';

/** How the runner times out and retries calls. Every field has a default. */
export interface RunnerOptions {
  /** One attempt's time-out unless the tool sets `@Timeout`: 60 000 ms. */
  readonly timeoutMs?: number;
  readonly retry?: {
    /** Attempts in all for a repeatable call that fails transiently: 3. Non-repeatable calls get 1. */
    readonly attempts?: number;
    /** The first retry waits about this long (with jitter), doubling each time: 200 ms. */
    readonly baseDelayMs?: number;
    /** No wait is longer than this: 10 000 ms. */
    readonly maxDelayMs?: number;
  };
  /** How long `@Idempotent({ remember: true })` results are kept: 24 hours. */
  readonly rememberMs?: number;
  /** Where retry jitter comes from; replace it for repeatable tests. */
  readonly random?: () => number;
  /** This node's name in run leases: `host:pid:random` unless given. Give each node a distinct one. */
  readonly node?: string;
  /** How long a run's lease lasts unless renewed: 30 000 ms. A dead node's runs are taken over after it. */
  readonly leaseMs?: number;
}

export const RUNNER_DEFAULTS = Object.freeze({
  timeoutMs: 60_000,
  attempts: 3,
  baseDelayMs: 200,
  maxDelayMs: 10_000,
  rememberMs: 24 * 60 * 60 * 1000,
  leaseMs: 30_000,
});

/**
 * A positive option (`zero`: or 0). A `timer` one is waited on by a Node timer, so it may be no longer
 * than Node's longest: a longer one fires at once. (`timeoutMs` need not be: the deadlines wait it out.)
 */
export function positive(name: string, value: number, allow: { zero?: boolean; timer?: boolean } = {}): number {
  const max = allow.timer === true ? MAX_TIMER_MS : Infinity;
  if (!Number.isFinite(value) || value < 0 || (allow.zero !== true && value === 0) || value > max) {
    const range = `${allow.zero === true ? 'of at least 0' : 'above 0'}${max === Infinity ? '' : ` and at most ${max}`}`;
    throw new ConfigurationError(`${name} must be a number ${range}; got ${String(value)}.`);
  }
  return value;
}
