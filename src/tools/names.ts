/**
 * Tool names. A tool's own name is 1 to 55 of `[A-Za-z0-9_-]`; the model sees `toolset__tool`, and
 * policies and agents say `toolset/tool` or `toolset/*`. Names are stable: saved runs refer to them.
 */
export const TOOL_NAME = /^[A-Za-z0-9_-]{1,55}$/;

/**
 * A toolset name: the same characters, without `__` (which separates it from the tool's name) and not
 * ending in `_`. So the first `__` of a model-facing name always ends the toolset, and two tools never
 * share one: toolset `srv_` with tool `x` and toolset `srv` with tool `_x` would both be `srv___x`.
 */
export const TOOLSET_NAME = /^(?!.*__)(?!.*_$)[A-Za-z0-9_-]{1,55}$/;

/** `TOOLSET_NAME` in words, for error messages. */
export const TOOLSET_NAME_RULE = '1 to 55 letters, digits, "_" or "-", without "__" and not ending in "_"';

/** `findOrder` → `find_order`, `getHTTPStatus` → `get_http_status`. */
export function snakeCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase();
}

/** The name a model sees: `orders__find_order`. */
export function modelName(toolset: string, tool: string): string {
  return `${toolset}__${tool}`;
}

/** The name policies and agents use: `orders/find_order`. */
export function toolRef(toolset: string, tool: string): string {
  return `${toolset}/${tool}`;
}

/** Up to `count` of `names` closest to `wanted`, by edit distance, for "did you mean" answers. */
export function closestNames(wanted: string, names: Iterable<string>, count = 3): string[] {
  return [...names]
    .map((name) => ({ name, distance: editDistance(wanted.toLowerCase(), name.toLowerCase()) }))
    .sort((a, b) => a.distance - b.distance || a.name.localeCompare(b.name))
    .slice(0, count)
    .map((entry) => entry.name);
}

/** The Levenshtein distance between two strings: how many one-character edits turn one into the other. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}
