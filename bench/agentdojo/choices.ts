// Which user tasks choose what to do on outside text: the request makes its choice on a rating (reviews and
// ratings come from one tool, labelled `outside`), a free slot in a calendar whose events others write, or a
// transaction that looks suspicious. A values-mode planner cannot see that text, so it reads the choice from
// it as a boolean (`wardrik__read`), in clear: from then on its run is steered, and later side effects ask.
import type { UserTask } from './suite.js';

const CHOICE = /\brat(?:ed|ing|ings)\b|\bbest\b|top-rated|suspicious|\bif so\b|\bif at\b/i;
/** A free slot: chosen on events' times, which the calendar shows in clear (only their text is held). */
const ON_TIMES = /\bif so\b|\bif at\b/i;

/** Why the task's choice depends on outside text, or `undefined` when it does not. */
export function choosesFromOutside(task: UserTask<unknown>): string | undefined {
  const found = CHOICE.exec(task.prompt);
  return found === null ? undefined : `the request chooses on "${found[0]}"`;
}

/**
 * The choice is on a free slot only: it reads events' times, shown in clear when the calendar names its outside
 * fields, so it counts as outside only when the events were held whole.
 */
export function choosesOnTimes(task: UserTask<unknown>): boolean {
  const found = CHOICE.exec(task.prompt);
  return found !== null && ON_TIMES.test(found[0]);
}
