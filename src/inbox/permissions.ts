import { NotPermittedError } from '../errors.js';
import type { InboxRecord } from '../store/store.js';

/** Who gives an answer: their id (`by`) and the groups their sign-in says they are in. */
export interface Answerer {
  readonly by?: string | undefined;
  readonly groups?: readonly string[] | undefined;
}

/** Who may answer the item, in words: `a person in finance-leads, other than ana (who asked for it); 2 of them must approve`. */
export function whoMayAnswer(item: InboxRecord): string {
  const rule = item.answerers;
  if (rule === undefined) return 'anyone signed in';
  const groups = rule.groups ?? [];
  let who =
    groups.length === 0
      ? 'anyone signed in'
      : `a person in ${groups.map((any) => any.map((group) => `"${group}"`).join(' or ')).join(' and in ')}`;
  if (rule.separateFrom === 'requester' && item.requester !== undefined)
    who += `, other than ${item.requester} (who asked for it)`;
  if (rule.quorum !== undefined && rule.quorum > 1) who += `; ${rule.quorum} such people must each approve`;
  return who;
}

/**
 * Why `person` may not answer the item, in words; `undefined` when they may. Items no rule names
 * answerers for are anyone's.
 */
export function whyNotTheirs(item: InboxRecord, person: Answerer): string | undefined {
  const rule = item.answerers;
  if (rule === undefined) return undefined;
  const named = person.by !== undefined && person.by !== '';
  if (!named && (rule.groups !== undefined || rule.separateFrom !== undefined || (rule.quorum ?? 1) > 1))
    return 'the answer names no person (by), and this item needs a named one';
  const mine = new Set(person.groups ?? []);
  const missing = (rule.groups ?? []).find((any) => !any.some((group) => mine.has(group)));
  if (missing !== undefined)
    return `${person.by} is not in ${missing.map((group) => `"${group}"`).join(' or ')}${mine.size === 0 ? ' (their sign-in gives no groups)' : ` (their groups: ${[...mine].join(', ')})`}`;
  if (rule.separateFrom === 'requester' && item.requester !== undefined && person.by === item.requester)
    return `${person.by} asked for this call, and may not answer it themselves`;
  return undefined;
}

/** Throws a `NotPermittedError` saying who may answer, unless `person` may. */
export function checkPermitted(item: InboxRecord, person: Answerer, verb: string): void {
  const why = whyNotTheirs(item, person);
  if (why === undefined) return;
  const who = whoMayAnswer(item);
  throw new NotPermittedError(
    `Inbox item "${item.id}" (${item.tool}) may not be ${verb} by ${person.by ?? 'an unnamed person'}: ${why}. Who may answer it: ${who}. Nothing was done.`,
    { item: item.id, who },
  );
}
