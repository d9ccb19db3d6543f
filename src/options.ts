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

/**
 * One number option in an area's table: its default and its range. Its type and doc comment stay on the
 * area's options interface (so the published .d.ts shows them), and `path` is checked against it.
 * `default` absent: the setting is `undefined` when the option is.
 */
export interface NumberOptionSpec<Path extends string = string> {
  readonly path: Path;
  readonly default?: number;
  readonly rule: NumberRule;
  /** Said after the refusal, such as how to leave the option out. */
  readonly hint?: string;
}

/**
 * The dotted paths of the number fields of an options type, such as `timeoutMs | retry.attempts`. Not
 * into arrays, functions or records (a record's entries are options of their own, checked each).
 */
export type NumberPaths<T> = {
  [K in keyof T & string]-?: string extends K
    ? never
    : NonNullable<T[K]> extends number
      ? K
      : NonNullable<T[K]> extends readonly unknown[] | ((...args: never[]) => unknown)
        ? never
        : NonNullable<T[K]> extends object
          ? `${K}.${NumberPaths<NonNullable<T[K]>>}`
          : never;
}[keyof T & string];

/** A table of number options by setting name. */
export type NumberTable = Readonly<Record<string, NumberOptionSpec>>;

/** The settings a table reads: a number for each option with a default, else a number or `undefined`. */
export type NumberSettings<Table extends NumberTable> = {
  readonly [K in keyof Table]: Table[K]['default'] extends number ? number : number | undefined;
};

/**
 * Declares the number options of `Options` once: `numberOptions<RunnerOptions>()({ timeoutMs: { path:
 * 'timeoutMs', default: 60_000, rule } })`. It fails to compile when a path is not a number option of
 * `Options`, or when a number option of `Options` has no row; `Elsewhere` names those another table
 * reads (such as `http.${NumberPaths<HttpServerOptions>}`).
 */
export function numberOptions<Options, Elsewhere extends string = never>() {
  return <const Table extends Readonly<Record<string, NumberOptionSpec<NumberPaths<Options>>>>>(
    table: Table &
      ([Exclude<NumberPaths<Options>, Table[keyof Table]['path'] | Elsewhere>] extends [never]
        ? unknown
        : { readonly missing: Exclude<NumberPaths<Options>, Table[keyof Table]['path'] | Elsewhere> }),
  ): Table => Object.freeze(table);
}

/**
 * The defaults of a table by setting name, frozen: what `RUNNER_DEFAULTS` and its kind publish. The type is
 * written out here, not as an alias, so the published .d.ts shows the defaults themselves.
 */
export function defaultsOf<const Table extends NumberTable>(
  table: Table,
): { readonly [K in keyof Table as Table[K]['default'] extends number ? K : never]: Table[K]['default'] } {
  const defaults: Record<string, number> = {};
  for (const [key, spec] of Object.entries(table)) if (spec.default !== undefined) defaults[key] = spec.default;
  return Object.freeze(defaults) as never;
}

/**
 * Two options of a table where one must not be more than the other: a first backoff wait and the
 * longest one, a header time-out and the request's. `why` says why, after "is longer than …;".
 */
export interface OptionOrder<Key extends string = string> {
  readonly lower: Key;
  readonly upper: Key;
  readonly why: string;
}

/**
 * Reads the options a table declares from `options`, each at `prefix` + its path (`runner.` gives
 * `runner.retry.attempts`), then the orders between them. A bad value throws a ConfigurationError naming
 * the option, what it must be and what it got; a bad order names both options and the fix.
 */
export function readNumbers<const Table extends NumberTable>(
  prefix: string,
  options: unknown,
  table: Table,
  orders: readonly OptionOrder<keyof Table & string>[] = [],
): NumberSettings<Table> {
  const settings: Record<string, number | undefined> = {};
  const given = new Set<string>();
  for (const [key, spec] of Object.entries(table)) {
    const value = valueAt(options, spec.path);
    if (value !== undefined) given.add(key);
    settings[key] = numberOption(`${prefix}${spec.path}`, value, spec.default as number, spec.rule, spec.hint);
  }
  for (const { lower, upper, why } of orders) {
    const low = settings[lower];
    const high = settings[upper];
    if (low === undefined || high === undefined || low <= high) continue;
    const lowPath = table[lower]!.path;
    const highPath = table[upper]!.path;
    const highName = relativeTo(lowPath, highPath);
    const lowName = lowPath.split('.').pop()!;
    const lowSaid = given.has(lower) ? `${low}` : `${low}, its default`;
    const fix = !given.has(lower)
      ? `give a ${highName} of at least ${low}, or a ${lowName} of your own no longer than it`
      : given.has(upper)
        ? `give a ${lowName} no longer than it, or a longer ${highName}`
        : `give a ${lowName} no longer than it, or a ${highName} of your own (it was left at its default)`;
    throw new ConfigurationError(
      `${prefix}${lowPath} (${lowSaid}) is longer than ${highName} (${high}); ${why}, so ${fix}.`,
    );
  }
  return settings as NumberSettings<Table>;
}

/** `path`'s value in `options`, or `undefined` when anything on the way is absent. */
function valueAt(options: unknown, path: string): unknown {
  let value = options;
  for (const part of path.split('.')) {
    if (value === null || value === undefined) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/** `to` as a sibling of `from` names it: `retry.maxDelayMs` beside `retry.baseDelayMs` is `maxDelayMs`. */
function relativeTo(from: string, to: string): string {
  const a = from.split('.');
  const b = to.split('.');
  let common = 0;
  while (common < a.length - 1 && common < b.length - 1 && a[common] === b[common]) common++;
  return b.slice(common).join('.');
}
