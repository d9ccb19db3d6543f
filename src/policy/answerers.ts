import { ConfigurationError } from '../errors.js';

/**
 * Who may answer an approval a rule asks for, as the inbox item keeps it: the groups a person must be
 * in, whether the person the run acts for is kept out, and how many distinct people must approve.
 */
export interface Answerers {
  /**
   * Each entry is one rule's `approvers`: a person must be in at least one group of every entry
   * (two rules that ask with groups of their own both hold).
   */
  readonly groups?: readonly (readonly string[])[];
  /** `requester`: the person the run acts for (`onBehalfOf`, the MCP caller, the Nest user) may not answer. */
  readonly separateFrom?: 'requester';
  /** How many distinct permitted people must approve the same arguments (their digest) before the call runs. */
  readonly quorum?: number;
}

/** What a rule or the `decide` hook may say about who answers what it asks. */
export interface AnswererOptions {
  /** Groups whose members may answer, such as `['finance-leads']`; anyone signed in when absent. */
  readonly approvers?: readonly string[];
  /**
   * `'requester'` (the default with `approvers`): the person the run acts for may not answer their own call.
   * `'none'` lets them.
   */
  readonly separateFrom?: 'requester' | 'none';
  /** Distinct people who must approve the same arguments: 1 unless set (2 for four eyes). */
  readonly quorum?: number;
}

export const ANSWERER_KEYS = ['approvers', 'separateFrom', 'quorum'] as const;
const MAX_QUORUM = 20;
const GROUP = /^[^\s,][^,\n\r\t]{0,99}$/;

/**
 * Checks what a rule (or a hook's answer) says about who answers, and returns it as an item keeps it;
 * `undefined` when it says nothing. `where` names the rule in errors.
 */
export function answerersOf(options: AnswererOptions, action: string, where: string): Answerers | undefined {
  const { approvers, separateFrom, quorum } = options;
  if (approvers === undefined && separateFrom === undefined && quorum === undefined) return undefined;
  if (action !== 'ask')
    throw new ConfigurationError(
      `Policy ${where}: approvers, separateFrom and quorum say who answers what a rule asks; this rule's action is ${JSON.stringify(action)}. Use action "ask", or leave them out.`,
    );
  if (approvers !== undefined) {
    if (!Array.isArray(approvers as unknown) || approvers.length === 0)
      throw new ConfigurationError(
        `Policy ${where}: approvers must name at least one group, such as ['finance-leads']; got ${JSON.stringify(approvers)}. Leave it out to let anyone signed in answer.`,
      );
    const bad = approvers.find((group) => typeof group !== 'string' || !GROUP.test(group));
    if (bad !== undefined)
      throw new ConfigurationError(
        `Policy ${where}: approvers names groups of 1 to 100 characters without commas or line breaks; got ${JSON.stringify(bad)}.`,
      );
  }
  if (separateFrom !== undefined && separateFrom !== 'requester' && separateFrom !== 'none')
    throw new ConfigurationError(
      `Policy ${where}: separateFrom is "requester" (the person the run acts for may not answer) or "none"; got ${JSON.stringify(separateFrom)}.`,
    );
  if (quorum !== undefined && (!Number.isSafeInteger(quorum) || quorum < 1 || quorum > MAX_QUORUM))
    throw new ConfigurationError(
      `Policy ${where}: quorum is how many distinct people must approve, a whole number from 1 to ${MAX_QUORUM}; got ${JSON.stringify(quorum)}.`,
    );
  // Kept from self-approval unless told otherwise, once anyone is named to answer.
  const separate = separateFrom === 'requester' || (separateFrom === undefined && approvers !== undefined);
  return Object.freeze({
    ...(approvers === undefined ? {} : { groups: Object.freeze([Object.freeze([...approvers])]) }),
    ...(separate ? { separateFrom: 'requester' as const } : {}),
    ...(quorum === undefined || quorum === 1 ? {} : { quorum }),
  });
}

/** Both rules' demands at once: every group list, kept from the requester if either says so, the larger quorum. */
export function mergeAnswerers(a: Answerers | undefined, b: Answerers | undefined): Answerers | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  const groups = [...(a.groups ?? []), ...(b.groups ?? [])];
  const quorum = Math.max(a.quorum ?? 1, b.quorum ?? 1);
  return Object.freeze({
    ...(groups.length === 0 ? {} : { groups: Object.freeze(groups) }),
    ...(a.separateFrom !== undefined || b.separateFrom !== undefined ? { separateFrom: 'requester' as const } : {}),
    ...(quorum === 1 ? {} : { quorum }),
  });
}
