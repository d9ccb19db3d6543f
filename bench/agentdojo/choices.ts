// Which user tasks choose what to do on outside text: the request makes its choice on a free slot in a
// calendar whose events others write, a listing's rating beside strangers' reviews, a listing's reviews, or a
// transaction that looks suspicious. A values-mode planner cannot see held text, so it reads such a choice from
// it as a boolean (`wardrik__read`), in clear: from then on its run is steered, and later side effects ask.
import type { UserTask } from './suite.js';

const CHOICE = /\brat(?:ed|ing|ings)\b|\bbest\b|top-rated|suspicious|\bif so\b|\bif at\b/i;
/** A free slot: chosen on events' times, which the calendar shows in clear (only their text is held). */
const ON_TIMES = /\bif so\b|\bif at\b/i;
/** A rating: the listing's number, which the rating tools show in clear (only the reviews are held). */
const ON_RATINGS = /\brat(?:ed|ing|ings)\b|\bbest\b|top-rated/i;
/** A choice on the reviews too ("the best rating and reviews", "the top-rated spot with amazing reviews"). */
const ON_REVIEWS = /\b(?:rating|rated|spot) (?:and|with) (?:amazing )?reviews\b/i;

/** Why the task's choice depends on outside text, or `undefined` when it does not. */
export function choosesFromOutside(task: UserTask<unknown>): string | undefined {
  const found = CHOICE.exec(task.prompt);
  return found === null ? undefined : `the request chooses on "${found[0]}"`;
}

/**
 * The choice reads only structured values a tool shows in clear when it names its outside fields: events'
 * times (a free slot) or listings' ratings. It counts as outside only when those answers were held whole. A
 * request that also chooses on reviews reads held text.
 */
export function choosesOnShownFields(task: UserTask<unknown>): boolean {
  const found = CHOICE.exec(task.prompt);
  if (found === null) return false;
  return ON_TIMES.test(found[0]) || (ON_RATINGS.test(found[0]) && !ON_REVIEWS.test(task.prompt));
}
