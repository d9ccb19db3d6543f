/**
 * The canonical encoding of a JSON value, what the audit chain hashes: JSON with no whitespace, object
 * keys sorted by UTF-16 code units, strings and numbers written as `JSON.stringify` writes them, and
 * fields whose value is `undefined` left out. For the values Wardrik records this is RFC 8785 (the JSON
 * Canonicalization Scheme), so anyone can recompute a hash outside Wardrik. Values JSON cannot hold
 * exactly (a non-finite number, a bigint, a function) are refused rather than written lossily.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError(`cannot encode ${value} canonically: JSON has no such number`);
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(',')}]`;
  if (typeof value === 'object') {
    const fields = Object.entries(value as Record<string, unknown>)
      .filter(([, field]) => field !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, field]) => `${JSON.stringify(key)}:${canonicalJson(field)}`);
    return `{${fields.join(',')}}`;
  }
  throw new TypeError(`cannot encode a ${typeof value} canonically`);
}
