/**
 * Glob patterns for tool refs (`orders/*`, `*\/find_*`) and resources (`/srv/data/**`): `*` matches
 * within one `/`-separated part, `**` across parts, `?` one character. Compiled once per pattern.
 */
export function glob(pattern: string): (text: string) => boolean {
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
