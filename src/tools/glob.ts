/**
 * Glob patterns for tool refs (`orders/*`, `*\/find_*`) and resources (`/srv/data/**`): `*` matches
 * within one `/`-separated part, `**` across parts, `?` one character. Compiled once per pattern and
 * kept, since agents' tool patterns are matched on every call; patterns come from callers, so the
 * cache starts over once it holds `MAX_KEPT` of them rather than growing without end.
 */
export function glob(pattern: string): (text: string) => boolean {
  let matcher = compiled.get(pattern);
  if (matcher === undefined) {
    if (compiled.size >= MAX_KEPT) compiled.clear();
    compiled.set(pattern, (matcher = compile(pattern)));
  }
  return matcher;
}

const MAX_KEPT = 1_000;
const compiled = new Map<string, (text: string) => boolean>();

function compile(pattern: string): (text: string) => boolean {
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i]!;
    if (char === '*' && pattern[i + 1] === '*') {
      source += '.*';
      i++;
    } else if (char === '*') {
      source += '[^/]*';
    } else if (char === '?') {
      source += '[^/]';
    } else {
      source += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
    }
  }
  const regex = new RegExp(`^${source}$`);
  return (text) => regex.test(text);
}
