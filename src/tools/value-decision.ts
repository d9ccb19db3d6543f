import { CONFIDENTIAL, OUTSIDE } from './labels.js';
import type { ResolvedArguments } from './value-table.js';

/** What `labels: 'values'` needs to know of one call. */
export interface ValueCall {
  readonly tool: string;
  readonly resolved: ResolvedArguments;
  /** Labels the planner read in clear (revealed reader fields): they may have chosen this call. */
  readonly steered: readonly string[];
  /** The labels of everything the run read, confidential ones included. */
  readonly runLabels: readonly string[];
  readonly readOnly: boolean;
  readonly openWorld: boolean;
}

/** `policy`: the labels do not stand in the way, the policy's rules decide; `ask`: a person decides. */
export type ValueVerdict = { readonly verdict: 'policy' } | { readonly verdict: 'ask'; readonly reason: string };

/**
 * The rule that follows values instead of the run. A call asks a person when an argument holds an outside
 * value and the call changes something or reaches outside; when outside data read in clear may have chosen
 * a call that changes something; and when such a choice could send the user's confidential data outside.
 * Otherwise the policy decides as if no outside text had been read.
 */
export function valueVerdict(call: ValueCall): ValueVerdict {
  const outsideArgs = call.resolved.uses.filter((use) => use.labels.includes(OUTSIDE));
  // Guard (outside-argument-asks): a call whose arguments hold outside text is not run on the model's word.
  if (outsideArgs.length > 0 && (!call.readOnly || call.openWorld)) {
    const where = outsideArgs.map((use) => `${use.path} ← ${use.handle} (from ${use.source.tool}, ${use.source.what})`);
    return { verdict: 'ask', reason: `${call.tool}'s arguments hold outside text: ${where.join('; ')}` };
  }
  const steered = call.steered.includes(OUTSIDE);
  if (steered && !call.readOnly) {
    return { verdict: 'ask', reason: `${call.tool} was chosen after the planner read outside data in clear` };
  }
  if (steered && call.openWorld && call.runLabels.includes(CONFIDENTIAL)) {
    return {
      verdict: 'ask',
      reason: `${call.tool} reaches outside, the run holds confidential data and outside data may have chosen the call`,
    };
  }
  return { verdict: 'policy' };
}
