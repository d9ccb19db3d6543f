import type { ToolAnswer } from '../tools/result.js';
import { callKey } from './prepared-call.js';

/**
 * The calls running in this process, by run and call id, with their answers to come: a duplicate joins
 * the first, and recovery leaves them alone.
 *
 * A call on its own (an agent's turn makes one at a time) sits in a slot of its own, found by comparing
 * its two ids: no key is built and no Map is touched, which cost about a tenth of a fast call (the key's
 * string, its hash, and the tables a Map grows and shrinks through). Calls beside it go in the Map, which
 * is replaced by a new one whenever it empties: in V8 a Map that has lived long (moved to the old
 * generation) and churns through keys keeps each table it discards alive until a full collection.
 */
export class CallsInFlight {
  private soleRun: string | undefined;
  private soleCall: string | undefined;
  private soleAnswer: Promise<ToolAnswer> | undefined;
  private others = new Map<string, Promise<ToolAnswer>>();

  get(run: string, call: string): Promise<ToolAnswer> | undefined {
    if (this.soleAnswer !== undefined && this.soleCall === call && this.soleRun === run) return this.soleAnswer;
    return this.others.size === 0 ? undefined : this.others.get(callKey(run, call));
  }

  has(run: string, call: string): boolean {
    return this.get(run, call) !== undefined;
  }

  /** Counts the call as in flight until `delete` with the same answer (a later `set` of the call replaces it). */
  set(run: string, call: string, answer: Promise<ToolAnswer>): void {
    if (this.soleAnswer !== undefined && this.soleCall === call && this.soleRun === run) {
      this.soleAnswer = answer;
    } else if (this.soleAnswer === undefined && (this.others.size === 0 || !this.others.has(callKey(run, call)))) {
      this.soleRun = run;
      this.soleCall = call;
      this.soleAnswer = answer;
    } else {
      this.others.set(callKey(run, call), answer);
    }
  }

  /** The call is no longer in flight, unless it was set again with another answer since. */
  delete(run: string, call: string, answer: Promise<ToolAnswer>): void {
    if (this.soleAnswer === answer && this.soleCall === call && this.soleRun === run) {
      this.soleRun = this.soleCall = this.soleAnswer = undefined;
      return;
    }
    if (this.others.size === 0) return;
    const key = callKey(run, call);
    if (this.others.get(key) !== answer) return;
    this.others.delete(key);
    if (this.others.size === 0) this.others = new Map();
  }
}
