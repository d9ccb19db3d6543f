/** Text nobody on the agent's side wrote: a web page, a customer's ticket, an untrusted MCP server's answer. */
export const OUTSIDE = 'outside';
/** Data that must not leave without a person: counted whatever a policy names (`@Labels('confidential')`). */
export const CONFIDENTIAL = 'confidential';
/** A tool's word that its answers hold nothing confidential (`@Labels('public')`), such as a catalogue. */
export const PUBLIC = 'public';

const ALREADY_SAID: ReadonlySet<string> = new Set([OUTSIDE, CONFIDENTIAL, PUBLIC]);
const ONLY_CONFIDENTIAL: readonly string[] = Object.freeze([CONFIDENTIAL]);

/**
 * The labels an answer of a tool carries: the tool's own and those its result carries, plus `confidential`
 * unless they already say `public`, `outside` or `confidential`. So with no option set, whatever the
 * app's own tools and trusted MCP servers answer counts as the user's data, and a run that read it and
 * outside text asks before reaching outside; outside text itself is not counted, so browsing stays free.
 */
export function answerLabels(own: readonly string[], carried: readonly string[] = []): readonly string[] {
  const labels = carried.length === 0 ? own : own.length === 0 ? carried : [...new Set([...own, ...carried])];
  const said = labels.some((label) => ALREADY_SAID.has(label));
  // Guard (own-data-confidential): what a tool says nothing about counts as the user's data.
  if (!said) return labels.length === 0 ? ONLY_CONFIDENTIAL : Object.freeze([...labels, CONFIDENTIAL]);
  return labels;
}
