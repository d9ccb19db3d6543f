import { MAX_TIMER_MS } from './clock.js';
import { ConfigurationError } from './errors.js';

/**
 * What a number option may be. `min` is inclusive and `above` exclusive (give one); `max` is inclusive.
 * `whole` asks for an integer; `infinity` lets `Infinity` through (meaning "never"); `unit` is said in
 * the message ("milliseconds", "dollars").
 */
export interface NumberRule {
  readonly min?: number;
  readonly above?: number;
  readonly max?: number;
  readonly whole?: boolean;
  readonly infinity?: boolean;
  readonly unit?: string;
}

/**
 * How long a Node timer waits: at most Node's longest timer, which fires a longer wait at once. From
 * `min`, or above `above` (at least 0 unless given); `infinity` lets `Infinity` through as "never".
 */
export function timerRule(
  low: { readonly min: number } | { readonly above: number } = { min: 0 },
  infinity = false,
): NumberRule {
  return { ...low, max: MAX_TIMER_MS, ...(infinity ? { infinity } : {}) };
}

/** A count (attempts, steps, tools, bytes): a whole number from `min` to `max`. */
export function countRule(min: number, max?: number): NumberRule {
  return max === undefined ? { min, whole: true } : { min, max, whole: true };
}

/** One call's time-out (a tool's `@Timeout`, an MCP server's `timeoutMs`): whole milliseconds a timer can wait. */
export const CALL_TIMEOUT_RULE: NumberRule = Object.freeze({
  above: 0,
  max: MAX_TIMER_MS,
  whole: true,
  unit: 'milliseconds',
});

/** Whether `value` meets the rule. */
export function meetsRule(value: unknown, rule: NumberRule): value is number {
  if (typeof value !== 'number' || Number.isNaN(value)) return false;
  if (value === Infinity) return rule.infinity === true;
  if (!Number.isFinite(value)) return false;
  if (rule.whole === true && !Number.isInteger(value)) return false;
  if (rule.min !== undefined && value < rule.min) return false;
  if (rule.above !== undefined && value <= rule.above) return false;
  return rule.max === undefined || value <= rule.max;
}

/** The rule in words: "a whole number from 1 to 100", "a number of at least 1 and at most 2147483647". */
export function describeRule(rule: NumberRule): string {
  const kind = `${rule.whole === true ? 'a whole number' : 'a number'}${rule.unit === undefined ? '' : ` of ${rule.unit}`}`;
  const never = rule.infinity === true ? ', or Infinity for never' : '';
  if (rule.whole === true && rule.min !== undefined && rule.max !== undefined)
    return `${kind} from ${rule.min} to ${rule.max}${never}`;
  const low = rule.above !== undefined ? `above ${rule.above}` : `of at least ${rule.min ?? 0}`;
  return `${kind} ${low}${rule.max === undefined ? '' : ` and at most ${rule.max}`}${never}`;
}

/**
 * Reads a number option: `fallback` when absent, the value when it meets the rule, and otherwise a
 * ConfigurationError naming the option, what it must be and what it got (then `hint`, if given).
 * Every number option of Wardrik is read through here, at start-up.
 */
export function numberOption(name: string, value: unknown, fallback: number, rule: NumberRule, hint?: string): number {
  if (value === undefined) return fallback;
  if (!meetsRule(value, rule)) {
    throw new ConfigurationError(
      `${name} must be ${describeRule(rule)}; got ${shown(value)}.${hint === undefined ? '' : ` ${hint}`}`,
    );
  }
  return value;
}

/** A value as a message shows it: numbers as they print, anything else as JSON (a string in quotes). */
function shown(value: unknown): string {
  if (typeof value === 'number' || value === undefined || typeof value === 'function' || typeof value === 'symbol')
    return String(value);
  try {
    return JSON.stringify(value)?.slice(0, 100) ?? typeof value;
  } catch {
    return typeof value;
  }
}
