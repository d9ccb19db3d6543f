import type { Answerers } from './answerers.js';
import type { Annotations } from '../tools/tool.js';

export type PolicyAction = 'allow' | 'ask' | 'deny';

/** What a policy decides from. */
export interface PolicyInput {
  readonly agent: string;
  readonly run: string;
  /** `toolset/tool` */
  readonly tool: string;
  readonly annotations: Annotations;
  readonly arguments: unknown;
  readonly labels: readonly string[];
  readonly resources: readonly string[];
  /** The person the run acts for (`startAgent({ onBehalfOf })`, the MCP caller), when known. */
  readonly onBehalfOf?: string;
  /** The agent's spend and budget, in US dollars, when the call has a budget. */
  readonly budget?: { readonly spentUsd: number; readonly limitUsd: number };
}

export interface Decision {
  readonly action: PolicyAction;
  /**
   * What decided, as the `tool.decided` event, the inbox item (`decidedBy`) and a denied call's answer
   * name it: `rule 2 (files/* deny)`, `agent rule 1 (…)`, `policy.decide hook`, `cedar policy "refund-small"`,
   * or the default that applied.
   */
  readonly rule: string;
  /** For `ask`: who may answer, when a rule or the hook says (`approvers`, `separateFrom`, `quorum`). */
  readonly answerers?: Answerers;
}

/** A person's answer to a parked call, as the journal keeps it beside the rule that asked (`CallRecord.decidedBy`). */
export interface PersonAnswer {
  readonly verb: 'approved' | 'denied' | 'answered';
  /** Who answered (several, for a quorum); a person not named when absent. */
  readonly by: string | undefined;
}

/**
 * What decided a call a person answered: the rule or policy that parked it, then the person,
 * `rule 3 (orders/* ask); approved by alice`. The person alone when the rule is unknown (a call journaled
 * before Wardrik kept it).
 */
export function decidedWith(rule: string | undefined, person: PersonAnswer): string {
  const who = `${person.verb} by ${person.by ?? 'a person'}`;
  return rule === undefined ? who : `${rule}; ${who}`;
}
