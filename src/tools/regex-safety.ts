/**
 * Whether a JSON Schema `pattern` is safe to run on hostile input with a backtracking engine (V8's, which
 * ajv uses). A pattern from an MCP server nobody here wrote, such as `^(a+)+$`, takes time that doubles
 * with each character of a string that almost matches, and one call then freezes the whole process. No
 * linear-time engine is installed, so patterns that can backtrack without bound are refused instead:
 *
 * - a backreference (`\1`, `\k<name>`), which no linear-time engine supports either;
 * - a repeat inside a repeat (star height above 1), such as `(a+)+`, `(a*)*`, `(.*a){20}`; a bounded
 *   repeat of bounded ones, such as `(\d{1,3}\.){3}`, is kept;
 * - an unbounded repeat of a group with alternatives, such as `(a|a)*` or `(a|ab)+`, which can match the
 *   same text in many ways;
 * - a pattern longer than `MAX_PATTERN_LENGTH` characters, or one that is not a valid expression.
 *
 * Repeats side by side (`a*a*`) take polynomial, not exponential, time and are kept.
 */
export function unsafePatternReason(pattern: string): string | undefined {
  if (pattern.length > MAX_PATTERN_LENGTH) return `it is longer than ${MAX_PATTERN_LENGTH} characters`;
  try {
    new RegExp(pattern, 'u');
  } catch (error) {
    return `it is not a valid regular expression (${(error as Error).message})`;
  }
  return new PatternScan(pattern).run();
}

/** The longest `pattern` accepted. */
export const MAX_PATTERN_LENGTH = 1_000;

/** What a group (or the whole pattern) holds, as far as repeats are concerned. */
interface Group {
  /** It holds a repeat that can match more than once (`*`, `+`, `{2}`, `{1,}` …). */
  repeats: boolean;
  /** It holds an unbounded repeat (`*`, `+`, `{n,}`). */
  unbounded: boolean;
  /** It holds `|` at its own level. */
  alternatives: boolean;
}

/** A repeat's bounds: its largest count, `Infinity` when unbounded. */
interface Repeat {
  readonly max: number;
  /** How many characters it spans, its lazy `?` included. */
  readonly length: number;
}

class PatternScan {
  private at = 0;
  private readonly stack: Group[] = [{ repeats: false, unbounded: false, alternatives: false }];

  constructor(private readonly pattern: string) {}

  run(): string | undefined {
    const p = this.pattern;
    while (this.at < p.length) {
      const c = p[this.at]!;
      if (c === '\\') {
        const next = p[this.at + 1] ?? '';
        if (/[1-9]/.test(next) || (next === 'k' && p[this.at + 2] === '<')) return 'it uses a backreference';
        this.at += next === 'u' && p[this.at + 2] === '{' ? p.indexOf('}', this.at) + 1 - this.at : 2;
        const problem = this.afterAtom(undefined);
        if (problem !== undefined) return problem;
      } else if (c === '[') {
        this.skipClass();
        const problem = this.afterAtom(undefined);
        if (problem !== undefined) return problem;
      } else if (c === '(') {
        this.at += openingLength(p, this.at);
        this.stack.push({ repeats: false, unbounded: false, alternatives: false });
      } else if (c === ')') {
        this.at++;
        const group =
          this.stack.length > 1 ? this.stack.pop()! : { repeats: false, unbounded: false, alternatives: false };
        const problem = this.afterAtom(group);
        if (problem !== undefined) return problem;
      } else if (c === '|') {
        this.at++;
        this.top.alternatives = true;
      } else {
        this.at++;
        const problem = this.afterAtom(undefined);
        if (problem !== undefined) return problem;
      }
    }
    return undefined;
  }

  private get top(): Group {
    return this.stack[this.stack.length - 1]!;
  }

  /** After an atom (a group when `group` is given): reads a repeat, if any, and records or refuses it. */
  private afterAtom(group: Group | undefined): string | undefined {
    const repeat = this.readRepeat();
    const parent = this.top;
    if (group !== undefined) {
      parent.repeats ||= group.repeats;
      parent.unbounded ||= group.unbounded;
    }
    if (repeat === undefined) return undefined;
    this.at += repeat.length;
    if (repeat.max <= 1) return undefined;
    if (group !== undefined) {
      if (repeat.max === Infinity && group.repeats)
        return 'it repeats a group that holds a repeat (such as (a+)+), which can take exponential time';
      if (group.unbounded)
        return 'it repeats a group that holds an unbounded repeat (such as (.*a){20}), which can take exponential time';
      if (repeat.max === Infinity && group.alternatives)
        return 'it repeats without bound a group with alternatives (such as (a|ab)*), which can take exponential time';
    }
    parent.repeats = true;
    if (repeat.max === Infinity) parent.unbounded = true;
    return undefined;
  }

  private readRepeat(): Repeat | undefined {
    const p = this.pattern;
    const c = p[this.at];
    const lazy = (length: number): number => (p[this.at + length] === '?' ? length + 1 : length);
    if (c === '*' || c === '+') return { max: Infinity, length: lazy(1) };
    if (c === '?') return { max: 1, length: lazy(1) };
    if (c !== '{') return undefined;
    const match = /^\{(\d+)(,(\d*))?\}/.exec(p.slice(this.at, this.at + 24));
    if (match === null) return undefined; // a literal "{", as in unicode-less patterns
    const max = match[2] === undefined ? Number(match[1]) : match[3] === '' ? Infinity : Number(match[3]);
    return { max, length: lazy(match[0].length) };
  }

  /** Skips a character class `[...]`, escapes inside it included. */
  private skipClass(): void {
    const p = this.pattern;
    this.at++;
    if (p[this.at] === '^') this.at++;
    while (this.at < p.length && p[this.at] !== ']') this.at += p[this.at] === '\\' ? 2 : 1;
    this.at++;
  }
}

/** How many characters open the group at `at`: `(`, `(?:`, `(?=`, `(?!`, `(?<=`, `(?<!` or `(?<name>`. */
function openingLength(p: string, at: number): number {
  if (p[at + 1] !== '?') return 1;
  if (p.startsWith('(?<=', at) || p.startsWith('(?<!', at)) return 4;
  if (p.startsWith('(?<', at)) return p.indexOf('>', at) + 1 - at;
  return 3;
}
