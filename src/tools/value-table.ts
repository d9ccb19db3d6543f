import { UsageError } from '../errors.js';
import { replaceAtPaths } from './field-paths.js';
import { CONFIDENTIAL, OUTSIDE, PUBLIC } from './labels.js';

/** Where a held value came from: the tool whose answer (or reader field) it is, and a word on its shape. */
export interface ValueSource {
  readonly tool: string;
  readonly what: string;
}

/** One held value: the real value, its labels and its source; only the handle is shown to the planner. */
export interface HeldValue {
  readonly handle: string;
  readonly value: unknown;
  readonly labels: readonly string[];
  readonly source: ValueSource;
}

/** Which part of a call's arguments a held value reached, for the approval's "which argument came from where". */
export interface ValueUse {
  readonly path: string;
  readonly handle: string;
  readonly source: ValueSource;
  readonly labels: readonly string[];
}

/** A call's arguments with every handle replaced by its value, and the labels those values bring. */
export interface ResolvedArguments {
  readonly args: unknown;
  readonly labels: readonly string[];
  readonly uses: readonly ValueUse[];
}

/** What the journal keeps of a run's table, so a recovered run hands out the same handles again. */
export interface ValueTableSnapshot {
  readonly next: number;
  readonly held: readonly HeldValue[];
  readonly steered: readonly string[];
}

const HANDLE = /\$outside_\d+/g;
/** The labels a handle's note names: Wardrik's own. Any other name may be a server's words (`wardrik/labels`). */
const NAMED_LABELS: ReadonlySet<string> = new Set([OUTSIDE, CONFIDENTIAL, PUBLIC]);
/** The most handles one call's arguments may hold: each may stand for a whole page, which the journal keeps. */
const MAX_HANDLES_A_CALL = 50;
/** The most outside fields one answer holds as handles; an answer with more is held whole. */
const MAX_HELD_FIELDS = 200;

/**
 * A run's held values (`labels: 'values'`): outside text is kept here and the planning model sees only a
 * handle such as `$outside_3`. A tool may receive handles in its arguments; `resolve` puts the real values
 * back at call time and returns the labels they carry, so a call's arguments have labels of their own.
 * One table per run: handles are numbered per run, so a handle from another run never resolves.
 */
export class ValueTable {
  private next: number;
  private readonly held = new Map<string, HeldValue>();
  /** Labels that reached the planner in clear (revealed reader fields): every later choice depends on them. */
  private readonly steeredBy = new Set<string>();

  constructor(snapshot?: ValueTableSnapshot) {
    this.next = snapshot?.next ?? 1;
    for (const held of snapshot?.held ?? []) this.held.set(held.handle, held);
    for (const label of snapshot?.steered ?? []) this.steeredBy.add(label);
  }

  /** Keeps a value and gives the handle the planner sees in its place. */
  hold(value: unknown, labels: readonly string[], source: ValueSource): string {
    const handle = `$outside_${this.next++}`;
    this.held.set(handle, Object.freeze({ handle, value, labels: Object.freeze([...labels]), source }));
    return handle;
  }

  /**
   * What the planner is shown of a tool's answer. An answer labelled `outside`, or one computed from
   * arguments that held outside values (a tool that echoes its input), is held and replaced by its handle
   * with a short note of where it came from; any other answer is shown as it is. `outsideFields`: the tool
   * names where outsiders write in its answers, so of an answer labelled `outside` (and computed from no
   * outside argument) that is a record or a list, only the values at those paths are held, each replaced
   * by its handle, and the rest is shown in clear.
   */
  conceal(
    answer: unknown,
    labels: readonly string[],
    source: ValueSource,
    argumentLabels: readonly string[] = [],
    outsideFields?: readonly string[],
  ) {
    const joined = [...new Set([...labels, ...argumentLabels])];
    // Guard (outside-value-held): outside text, and what a tool made of it, reaches the planner only as a handle.
    if (!joined.includes(OUTSIDE)) return { shown: answer, labels: joined };
    const structured = answer !== null && typeof answer === 'object';
    if (outsideFields !== undefined && structured && !argumentLabels.includes(OUTSIDE)) {
      let count = 0;
      replaceAtPaths(answer, outsideFields, (value) => (count++, value));
      // Hostile input is bounded: an answer with more outside fields than that is held whole instead.
      if (count <= MAX_HELD_FIELDS) {
        const holdField = (value: unknown, at: string) => this.hold(value, joined, { tool: source.tool, what: at });
        // Guard (outside-fields-held): each value at a declared outside field reaches the planner only as a handle.
        const shown = replaceAtPaths(answer, outsideFields, holdField);
        return { shown, labels: joined };
      }
    }
    const handle = this.hold(answer, joined, source);
    // Guard (label-names-not-shown): a hostile server names labels (`pay:GB29…`): the planner reads only Wardrik's own.
    const named = joined.filter((label) => NAMED_LABELS.has(label));
    return { shown: { handle, from: source.tool, type: source.what, labels: named }, labels: joined };
  }

  /** Marks that the planner has read a few bits of outside data in clear: its later choices depend on them. */
  steer(labels: readonly string[]): void {
    for (const label of labels) this.steeredBy.add(label);
  }

  /** The labels that may have chosen any call from now on (empty while the planner has read no outside data). */
  steered(): readonly string[] {
    return [...this.steeredBy];
  }

  value(handle: string): HeldValue {
    const held = this.held.get(handle);
    if (held === undefined) {
      throw new UsageError(
        `The handle "${handle}" is not one this run handed out: handles are made per run by Wardrik when outside ` +
          `text arrives. Pass a handle exactly as a tool answer showed it, or the text itself if the user gave it.`,
      );
    }
    return held;
  }

  /**
   * The call's arguments with each handle replaced by its value. A string that is exactly a handle becomes
   * the value (any type); a handle inside a longer string is replaced by the value's text, and the whole
   * string carries the value's labels, so building a new string around a handle launders nothing.
   */
  resolve(args: unknown): ResolvedArguments {
    const uses: ValueUse[] = [];
    const walk = (node: unknown, path: string): unknown => {
      if (typeof node === 'string') return this.substitute(node, path, uses);
      if (Array.isArray(node)) return node.map((item, index) => walk(item, `${path}[${index}]`));
      if (node !== null && typeof node === 'object') {
        const entries: [string, unknown][] = [];
        for (const [key, item] of Object.entries(node)) {
          const at = path === '' ? key : `${path}.${key}`;
          // Guard (handle-keys-resolved): a handle in a key is put back too, and its value's labels join the call's.
          const named = this.substituteKey(key, at, uses);
          if (named !== key && (Object.hasOwn(node, named) || entries.some(([other]) => other === named)))
            throw new UsageError(
              `The key "${key}" at ${path === '' ? '(arguments)' : path} names the same text as another key once its handles are put back. Pass such values as values (a list of records), not as keys.`,
            );
          entries.push([named, walk(item, at)]);
        }
        return Object.fromEntries(entries);
      }
      return node;
    };
    const resolved = walk(args, '');
    // Hostile input is bounded: a few handles of a long page, repeated, would make the arguments huge.
    if (uses.length > MAX_HANDLES_A_CALL) {
      throw new UsageError(
        `The arguments hold ${uses.length} handles; one call takes at most ${MAX_HANDLES_A_CALL}. Pass fewer, or read the fields you need with wardrik__read.`,
      );
    }
    const labels = [...new Set(uses.flatMap((use) => use.labels))];
    return { args: resolved, labels, uses };
  }

  /**
   * The text with each handle this run handed out replaced by its value: what a person reads of the model's
   * final answer. One pass, so a held value that itself holds a handle's text is shown as it is.
   */
  reveal(text: string): string {
    return text.replace(HANDLE, (handle) => {
      const held = this.held.get(handle);
      return held === undefined ? handle : asText(held.value);
    });
  }

  snapshot(): ValueTableSnapshot {
    return this.since(0);
  }

  /** How many values the table holds: a mark to take a snapshot of only what comes after (`since`). */
  get size(): number {
    return this.held.size;
  }

  /** What the journal keeps of a step: the values held after `mark`, the next number, what steered the run. */
  since(mark: number): ValueTableSnapshot {
    return { next: this.next, held: [...this.held.values()].slice(mark), steered: [...this.steeredBy] };
  }

  /**
   * One snapshot of several in order (a conversation's turns, a turn's steps). A handle two of them hold
   * with different values (two turns of one conversation ran at once) is left out: it is refused, naming
   * it, rather than resolved to a value the model may not have meant.
   */
  static merged(snapshots: readonly ValueTableSnapshot[]): ValueTableSnapshot {
    const held = new Map<string, HeldValue>();
    const conflicting = new Set<string>();
    const steered = new Set<string>();
    let next = 1;
    for (const snapshot of snapshots) {
      next = Math.max(next, snapshot.next);
      for (const label of snapshot.steered) steered.add(label);
      for (const value of snapshot.held) {
        const known = held.get(value.handle);
        if (known !== undefined && JSON.stringify(known) !== JSON.stringify(value)) conflicting.add(value.handle);
        held.set(value.handle, value);
      }
    }
    const kept = [...held.values()].filter((value) => !conflicting.has(value.handle));
    return { next, held: kept, steered: [...steered] };
  }

  /** A key with each handle replaced by its value's text (a key is always text); its uses are named `path (key)`. */
  private substituteKey(key: string, path: string, uses: ValueUse[]): string {
    const named = this.substitute(key, `${path} (key)`, uses);
    return typeof named === 'string' ? named : asText(named);
  }

  private substitute(text: string, path: string, uses: ValueUse[]): unknown {
    const found = text.match(HANDLE);
    if (found === null) return text;
    for (const handle of found) {
      const held = this.value(handle);
      uses.push({ path: path === '' ? '(arguments)' : path, handle, source: held.source, labels: held.labels });
    }
    if (found.length === 1 && found[0] === text) return this.value(text).value;
    return text.replace(HANDLE, (handle) => asText(this.value(handle).value));
  }
}

function asText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}
