/** How the `wardrik` command writes values for people; `--json` output never goes through these. */

/** `{"orderId":"ord_1001"}`, cut to `max` characters with an ellipsis. */
export function compact(value: unknown, max = 200): string {
  let text: string;
  try {
    text = value === undefined ? '-' : typeof value === 'string' ? value : JSON.stringify(value);
  } catch {
    text = String(value);
  }
  text = text.replace(/\s+/g, ' ');
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** `12s ago`, `3m ago`, `2h ago`, `4d ago`. */
export function age(ms: number, now: number): string {
  const seconds = Math.max(0, Math.round((now - ms) / 1000));
  if (seconds < 60) return `${seconds}s ago`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours}h ago`;
  return `${Math.floor(hours / 24)}d ago`;
}

/** `2026-11-29 20:01:02Z`: UTC, to the second. */
export function time(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, 'Z');
}

/** `$0.0012`, `$1.25`. */
export function usd(amount: number): string {
  return `$${amount.toFixed(Math.abs(amount) < 1 ? 4 : 2)}`;
}

/** `outside, pii`, or `-` for none. */
export function list(values: readonly string[] | undefined): string {
  return values === undefined || values.length === 0 ? '-' : values.join(', ');
}

/** Columns padded to their widest cell; the last column is not padded. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((cell, i) => Math.max(cell.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (row: readonly string[]): string =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

/** Every line of `text` indented by `spaces`. */
export function indent(text: string, spaces: number): string {
  const pad = ' '.repeat(spaces);
  return text
    .split('\n')
    .map((line) => pad + line)
    .join('\n');
}

/** A string for a shell: as is when it is safe, else in single quotes. */
export function shellQuote(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}
