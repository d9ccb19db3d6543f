import { countRule, numberOption, timerRule } from '../options.js';

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

/** The runner's numbers, checked at start-up. */
export interface RunnerSettings {
  readonly timeoutMs: number;
  readonly attempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  readonly rememberMs: number;
  readonly leaseMs: number;
}

/** Above 0 and no longer than a Node timer waits (a tool's `@Timeout` has the same bound). */
const ABOVE_ZERO_TIMER = timerRule({ above: 0 });

/** Reads `Wardrik.create({ runner })`; a bad value throws a ConfigurationError naming it. */
export function runnerSettings(options: RunnerOptions): RunnerSettings {
  return {
    timeoutMs: numberOption('runner.timeoutMs', options.timeoutMs, RUNNER_DEFAULTS.timeoutMs, ABOVE_ZERO_TIMER),
    attempts: numberOption(
      'runner.retry.attempts',
      options.retry?.attempts,
      RUNNER_DEFAULTS.attempts,
      countRule(1, 100),
    ),
    baseDelayMs: numberOption(
      'runner.retry.baseDelayMs',
      options.retry?.baseDelayMs,
      RUNNER_DEFAULTS.baseDelayMs,
      timerRule(),
    ),
    maxDelayMs: numberOption(
      'runner.retry.maxDelayMs',
      options.retry?.maxDelayMs,
      RUNNER_DEFAULTS.maxDelayMs,
      timerRule(),
    ),
    // Kept in the store as an expiry time, never waited on by a timer: it may be longer than one.
    rememberMs: numberOption('runner.rememberMs', options.rememberMs, RUNNER_DEFAULTS.rememberMs, { above: 0 }),
    leaseMs: numberOption('runner.leaseMs', options.leaseMs, RUNNER_DEFAULTS.leaseMs, ABOVE_ZERO_TIMER),
  };
}
