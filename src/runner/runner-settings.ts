import { countRule, numberOption, timerRule } from '../options.js';
import type { RunnerOptions } from './tool-runner.js';

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
    attempts: numberOption('runner.retry.attempts', options.retry?.attempts, RUNNER_DEFAULTS.attempts, countRule(1, 100)),
    baseDelayMs: numberOption('runner.retry.baseDelayMs', options.retry?.baseDelayMs, RUNNER_DEFAULTS.baseDelayMs, timerRule()),
    maxDelayMs: numberOption('runner.retry.maxDelayMs', options.retry?.maxDelayMs, RUNNER_DEFAULTS.maxDelayMs, timerRule()),
    // Kept in the store as an expiry time, never waited on by a timer: it may be longer than one.
    rememberMs: numberOption('runner.rememberMs', options.rememberMs, RUNNER_DEFAULTS.rememberMs, { above: 0 }),
    leaseMs: numberOption('runner.leaseMs', options.leaseMs, RUNNER_DEFAULTS.leaseMs, ABOVE_ZERO_TIMER),
  };
}
