import { createHash } from 'node:crypto';
import { canonicalJson } from '../runner/digest.js';
import { ARGUMENT_LIMITS } from '../tools/arguments.js';
import { errorAnswer, type ToolAnswer } from '../tools/result.js';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** One call of a session: the call id it runs under and the runner's answer. */
export interface SessionCall {
  readonly tool: string;
  readonly args: unknown;
  /** The tool and its arguments, made only when another call could be the same one (see `SameCalls`). */
  key: string | undefined;
  /** Set when the call starts: at once, or once the identical call ahead of it has its answer. */
  id: string;
  /** Its id is that of an earlier call waiting for a person, which it joined. */
  joined: boolean;
  readonly answer: Promise<ToolAnswer>;
}

/**
 * Which call id each call of one session runs under, so that the same call (tool and arguments) made
 * again while the first waits for a person joins it — one inbox item, one run, one result — while every
 * other call is a call of its own.
 *
 * A call identical to one still on its way through the runner waits for that one's answer first, since
 * until then nobody knows whether it will wait for a person: if it parked, the repeat joins it; if not,
 * the repeat runs as a call of its own. Calls under way are compared value by value; keys (the tool and
 * the arguments' canonical JSON, or its digest when long) are made only for calls that wait for a person
 * and for the calls made while one does.
 */
export class SameCalls {
  private count = 0;
  /** Calls on their way through the runner (at most the session's calls in flight). */
  private readonly running: SessionCall[] = [];
  /** Calls that parked and whose result has not been given, by key: a repeat joins them. */
  private readonly waiting = new Map<string, string>();

  /**
   * Gives the call its id and starts `run` under it, at once unless an identical call is ahead of it.
   * A call stopped (`signal`) while it waits for that one never runs.
   */
  start(tool: string, args: unknown, signal: AbortSignal, run: (id: string) => Promise<ToolAnswer>): SessionCall {
    let ahead: SessionCall | undefined;
    for (let i = this.running.length - 1; i >= 0 && ahead === undefined; i--) {
      const other = this.running[i]!;
      if (other.tool === tool && sameJson(other.args, args, 0)) ahead = other;
    }
    const key = this.waiting.size > 0 ? callKey(tool, args) : undefined;
    const call: Mutable<SessionCall> = { tool, args, key, id: '', joined: false, answer: undefined! };
    this.running.push(call);
    if (ahead === undefined) {
      this.assign(call);
      call.answer = run(call.id);
    } else {
      // One promise on the one ahead (its id and `joined` are set before its answer settles), not a
      // chain of async steps: in a burst of identical calls, every call but the first waits here.
      const behind = ahead;
      const start = (answer: ToolAnswer | undefined): Promise<ToolAnswer> => {
        if (answer?.status === 'parked' || behind.joined) {
          call.id = behind.id;
          call.joined = true;
        } else {
          this.assign(call);
        }
        return signal.aborted
          ? Promise.resolve(errorAnswer('aborted', 'The call was stopped before it ran.'))
          : run(call.id);
      };
      call.answer = behind.answer.then(start, () => start(undefined));
    }
    return call;
  }

  /** The runner answered `call` (`undefined`: it failed): it no longer holds back repeats, and a parked one is joined by them. */
  settled(call: SessionCall, answer: ToolAnswer | undefined): void {
    const at = this.running.indexOf(call);
    if (at >= 0) this.running.splice(at, 1);
    if (answer?.status === 'parked') this.waiting.set((call.key ??= callKey(call.tool, call.args)), call.id);
    else this.answered(call);
  }

  /** The call's result was given: the same arguments again make a new call. */
  answered(call: SessionCall): void {
    if (this.waiting.size === 0) return;
    const key = (call.key ??= callKey(call.tool, call.args));
    if (this.waiting.get(key) === call.id) this.waiting.delete(key);
  }

  /** The id of the waiting call it repeats, else a new one. */
  private assign(call: Mutable<SessionCall>): void {
    const waiting = call.key === undefined ? undefined : this.waiting.get(call.key);
    call.joined = waiting !== undefined;
    call.id = waiting ?? `call-${++this.count}`;
  }
}

/** The tool and its arguments: their canonical JSON when short, else its digest (keys are kept while calls wait). */
function callKey(tool: string, args: unknown): string {
  let json: string;
  try {
    json = canonicalJson(args);
  } catch {
    return `${tool}\u0000${Math.random()}`; // arguments too deep to write out: the runner refuses them, and they join nothing
  }
  return `${tool}\u0000${json.length <= 200 ? json : createHash('sha256').update(json).digest('hex')}`;
}

/** Whether two JSON values are equal, key order aside; values nested deeper than the runner allows never are. */
function sameJson(a: unknown, b: unknown, depth: number): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object' || depth > MAX_DEPTH) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i], depth + 1)) return false;
    return true;
  }
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const key of keys)
    if (
      !Object.hasOwn(b, key) ||
      !sameJson((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], depth + 1)
    )
      return false;
  return true;
}

const MAX_DEPTH = ARGUMENT_LIMITS.depth;
