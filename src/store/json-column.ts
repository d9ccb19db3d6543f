/**
 * Values kept as JSON text. SQL NULL stands for `undefined` and the text `null` for `null`, so both
 * come back as they went in (a call's arguments may be either).
 */
export function encodeJson(value: unknown): string | null {
  return value === undefined ? null : JSON.stringify(value);
}

export function decodeJson(text: string | null): unknown {
  return text === null ? undefined : JSON.parse(text);
}
