/**
 * SEP-2243 (protocol 2026-07-28, Streamable HTTP): a tool's input schema may mark properties with
 * `x-mcp-header: Name`, and a client calling it sends each such argument as the HTTP header
 * `Mcp-Param-Name` too, so that proxies and gateways can route on it without reading the body. A server
 * checks the headers against the body. A declaration the revision does not allow makes the tool invalid,
 * and a client must not call it.
 */

/** One argument mirrored into a header: where it sits in the arguments, and the header's name after `Mcp-Param-`. */
export interface ParamHeader {
  readonly path: readonly string[];
  readonly name: string;
}

/** What a tool's `x-mcp-header` declarations are: the headers, or why the tool is invalid. */
export type ParamHeaderScan =
  { readonly ok: true; readonly headers: readonly ParamHeader[] } | { readonly ok: false; readonly reason: string };

const KEY = 'x-mcp-header';
/** An RFC 9110 token: no spaces, control characters or delimiters. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const TYPES = new Set(['string', 'integer', 'boolean']);
/** Keywords whose subschemas are not reached through `properties` alone: a declaration there is invalid. */
const ELSEWHERE = [
  'items',
  'prefixItems',
  'contains',
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'propertyNames',
  'patternProperties',
  'dependentSchemas',
  'oneOf',
  'anyOf',
  'allOf',
  'not',
  'if',
  'then',
  'else',
  '$defs',
  'definitions',
];
const BY_NAME = new Set(['patternProperties', 'dependentSchemas', '$defs', 'definitions']);
const SENTINEL = ['=?base64?', '?='] as const;

/** The `x-mcp-header` declarations of an input schema, checked as the revision asks. */
export function scanParamHeaders(inputSchema: unknown): ParamHeaderScan {
  const headers: ParamHeader[] = [];
  const seen = new Map<string, string>();
  const visit = (node: unknown, path: readonly string[], reachable: boolean): string | undefined => {
    if (node === null || typeof node !== 'object') return undefined;
    const schema = node as Record<string, unknown>;
    const where = path.length === 0 ? 'the schema itself' : `property "${path.join('.')}"`;
    if (KEY in schema) {
      const name = schema[KEY];
      if (!reachable || path.length === 0)
        return `${where} declares x-mcp-header where only a chain of "properties" may (not under items, additionalProperties, oneOf/anyOf/allOf/not, if/then/else or $defs)`;
      if (typeof name !== 'string' || name === '')
        return `${where} declares an x-mcp-header that is not a non-empty string`;
      if (!TOKEN.test(name))
        return `${where} declares x-mcp-header "${name}", which is not an HTTP token (no spaces, control characters or delimiters)`;
      if (typeof schema.type !== 'string' || !TYPES.has(schema.type))
        return `${where} declares x-mcp-header "${name}" on a ${JSON.stringify(schema.type ?? 'untyped')} property; only string, integer and boolean ones may`;
      const other = seen.get(name.toLowerCase());
      if (other !== undefined) return `x-mcp-header "${name}" is declared twice (also as "${other}")`;
      seen.set(name.toLowerCase(), name);
      headers.push({ path, name });
    }
    const properties = schema.properties;
    if (properties !== null && typeof properties === 'object') {
      for (const [key, child] of Object.entries(properties)) {
        const problem = visit(child, [...path, key], reachable);
        if (problem !== undefined) return problem;
      }
    }
    for (const keyword of ELSEWHERE) {
      const sub = schema[keyword];
      if (sub === undefined) continue;
      const branches = Array.isArray(sub)
        ? sub
        : BY_NAME.has(keyword) && sub !== null && typeof sub === 'object'
          ? Object.values(sub)
          : [sub];
      for (const branch of branches) {
        const problem = visit(branch, [...path, `(${keyword})`], false);
        if (problem !== undefined) return problem;
      }
    }
    return undefined;
  };
  const problem = visit(inputSchema, [], true);
  return problem === undefined ? { ok: true, headers } : { ok: false, reason: problem };
}

/**
 * The `Mcp-Param-*` headers of one call: each declared argument that is present and a string, a safe
 * integer or a boolean, as its text; a value that is not plain printable ASCII (or has space at either
 * end) is sent base64-encoded as `=?base64?…?=`.
 */
export function paramHeaders(headers: readonly ParamHeader[], args: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const { path, name } of headers) {
    let value: unknown = args;
    for (const key of path)
      value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
    const text =
      typeof value === 'string'
        ? value
        : typeof value === 'boolean'
          ? String(value)
          : typeof value === 'number' &&
              Number.isFinite(value) &&
              (!Number.isInteger(value) || Number.isSafeInteger(value))
            ? String(value)
            : undefined;
    if (text !== undefined) out[`Mcp-Param-${name}`] = encoded(text);
  }
  return out;
}

function encoded(text: string): string {
  const plain =
    text !== '' &&
    text === text.trim() &&
    !(text.startsWith(SENTINEL[0]) && text.endsWith(SENTINEL[1])) &&
    /^[\t\x20-\x7e]*$/.test(text);
  return plain ? text : `${SENTINEL[0]}${Buffer.from(text, 'utf8').toString('base64')}${SENTINEL[1]}`;
}
