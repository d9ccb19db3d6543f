import { createHash } from 'node:crypto';
import { canonicalJson } from '../runner/digest.js';
import { errorAnswer, type ToolAnswer } from '../tools/result.js';

/** One call of a session: the call id it runs under and the runner's answer, once `ready` settles. */
export interface SessionCall {
  readonly tool: string;
  readonly args: unknown;
  /** The tool and its arguments, made only when another call could be the same one (see `SameCalls`). */
  key: string | undefined;
  id: string;
  /** Its id is that of an earlier call waiting for a person, which it joined. */
  joined: boolean;
  answer: Promise<ToolAnswer>;
  /** Set while the call waits for an identical one ahead of it; `id` and `answer` are set once it settles. */
  ready: Promise<void> | undefined;
}

/**
 * Which call id each call of one session runs under, so that the same call (tool and arguments) made
 * again while the first waits for a person joins it — one inbox item, one run, one result — while every
 * other call is a call of its own.
 *
 * A call identical to one still on its way through the runner waits for that one's answer first, since
 * until then nobody knows whether it will wait for a person: if it parked, the repeat joins it; if not,
 * the repeat runs as a call of its own. Keys (the tool and the arguments' canonical JSON, or its digest
 * when long) are made only when another call of the same tool is under way or a call waits, which a
 * session making one call at a time never has.
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
    let key: string | undefined;
    if (this.waiting.size > 0 || this.running.some((other) => other.tool === tool)) {
      key = callKey(tool, args);
      for (const other of this.running) if (other.tool === tool && (other.key ??= callKey(tool, other.args)) === key) ahead = other;
    }
    const call: SessionCall = { tool, args, key, id: '', joined: false, answer: undefined!, ready: undefined };
    this.running.push(call);
    if (ahead === undefined) {
      this.assign(call);
      call.answer = run(call.id);
    } else {
      call.ready = this.after(ahead).then((joined) => {
        call.ready = undefined;
        if (joined === undefined) this.assign(call);
        else [call.id, call.joined] = [joined, true];
        call.answer = signal.aborted ? Promise.resolve(errorAnswer('aborted', 'The call was stopped before it ran.')) : run(call.id);
      });
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
    if (call.key !== undefined && this.waiting.get(call.key) === call.id) this.waiting.delete(call.key);
  }

  /**
   * The id of the call waiting for a person that `ahead` stands for, once its runner answered: its own
   * when it parked, the one it joined when it joined one; undefined otherwise.
   */
  private async after(ahead: SessionCall): Promise<string | undefined> {
    if (ahead.ready !== undefined) await ahead.ready;
    const answer = await ahead.answer.catch(() => undefined);
    return answer?.status === 'parked' || ahead.joined ? ahead.id : undefined;
  }

  /** The id of the waiting call it repeats, else a new one. */
  private assign(call: SessionCall): void {
    const waiting = call.key === undefined ? undefined : this.waiting.get(call.key);
    call.joined = waiting !== undefined;
    call.id = waiting ?? `call-${++this.count}`;
  }
}

/** The tool and its arguments: their canonical JSON when short, else its digest (keys are kept while calls wait). */
function callKey(tool: string, args: unknown): string {
  const json = canonicalJson(args);
  return `${tool}\u0000${json.length <= 200 ? json : createHash('sha256').update(json).digest('hex')}`;
}
