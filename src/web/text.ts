/** Line breaks, other control characters and bidirectional overrides: what must not reach one line a person reads. */
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * The text as one line in reading order: each unprintable character becomes a space. For names recorded as
 * `by` (printed to terminals by `wardrik inbox`) and for notification text (shown in Slack and Teams).
 */
export function printableLine(text: string): string {
  return text.replace(UNPRINTABLE, ' ');
}
