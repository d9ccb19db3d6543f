import { countRule, defaultsOf, numberOptions, readNumbers, timerRule, type NumberSettings } from '../options.js';

/** How the runner times out and retries calls. Every field has a default. */
export interface RunnerOptions {
  /** One attempt's time-out unless the tool sets `@Timeout`: 60 000 ms. */
  readonly timeoutMs?: number;
  readonly retry?: {
    /** Attempts in all for a repeatable call that fails transiently: 3. Non-repeatable calls get 1. */
    readonly attempts?: number;
    /** The first retry waits about this long (with jitter), doubling each time: 200 ms. No more than `maxDelayMs`. */
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

/** Above 0 and no longer than a Node timer waits (a tool's `@Timeout` has the same bound). */
const ABOVE_ZERO_TIMER = timerRule({ above: 0 });

/** The runner's number options, each declared once: where it is in `RunnerOptions`, its default and range. */
export const RUNNER_NUMBERS = numberOptions<RunnerOptions>()({
  timeoutMs: { path: 'timeoutMs', default: 60_000, rule: ABOVE_ZERO_TIMER },
  attempts: { path: 'retry.attempts', default: 3, rule: countRule(1, 100) },
  baseDelayMs: { path: 'retry.baseDelayMs', default: 200, rule: timerRule() },
  maxDelayMs: { path: 'retry.maxDelayMs', default: 10_000, rule: timerRule() },
  // Kept in the store as an expiry time, never waited on by a timer: it may be longer than one.
  rememberMs: { path: 'rememberMs', default: 24 * 60 * 60 * 1000, rule: { above: 0 } },
  leaseMs: { path: 'leaseMs', default: 30_000, rule: ABOVE_ZERO_TIMER },
});

export const RUNNER_DEFAULTS = defaultsOf(RUNNER_NUMBERS);

/** The runner's numbers, checked at start-up. */
export type RunnerSettings = NumberSettings<typeof RUNNER_NUMBERS>;

/** Reads `Wardrik.create({ runner })`; a bad value throws a ConfigurationError naming it. */
export function runnerSettings(options: RunnerOptions): RunnerSettings {
  return readNumbers('runner.', options, RUNNER_NUMBERS, [
    { lower: 'baseDelayMs', upper: 'maxDelayMs', why: 'no retry waits longer than maxDelayMs' },
  ]);
}
