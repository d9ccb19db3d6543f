/**
 * Cedar's values as the compiled evaluator holds them: booleans, longs (safe-integer numbers), strings,
 * sets (arrays), records (plain objects), entity references (`Uid`) and decimals (`Decimal`). Anything the
 * compiled path cannot hold exactly throws `Unsupported`, and the whole decision goes to cedar-wasm instead.
 */

/** An entity reference; `key` is the one string two equal references share. */
export class Uid {
  readonly key: string;
  constructor(
    readonly type: string,
    readonly id: string,
  ) {
    this.key = `${type}::${JSON.stringify(id)}`;
  }
}

/** Cedar's `decimal`: four places, held as an integer count of ten-thousandths. */
export class Decimal {
  constructor(readonly scaled: number) {}
}

export type CedarValue = boolean | number | string | Uid | Decimal | readonly CedarValue[] | CedarRecord;
export interface CedarRecord {
  readonly [name: string]: CedarValue;
}

/** A Cedar evaluation error: the policy that raised it does not apply, and Cedar's authorizer reports it. */
export class CedarEvalError extends Error {}

/** Something the compiled evaluator will not decide (it would have to guess): cedar-wasm decides instead. */
export class Unsupported extends Error {}

const I64_MAX = 2n ** 63n - 1n;
const I64_MIN = -(2n ** 63n);

/** A long operation's result: exact when a safe integer, an overflow error beyond 64 bits, else not ours. */
export function long(result: number, exact: () => bigint): number {
  // Guard (cedar-long-exact): a long past 2^53 is rounded in JS: an overflow errs, the rest goes to cedar-wasm.
  if (Number.isSafeInteger(result)) return result;
  const big = exact();
  if (big > I64_MAX || big < I64_MIN) throw new CedarEvalError('integer overflow');
  throw new Unsupported('a long beyond 2^53');
}

/** `decimal("12.3400")`: Cedar's grammar (an optional minus, digits, a point, one to four places). */
export function parseDecimal(text: string): Decimal {
  const match = /^(-?)(\d+)\.(\d{1,4})$/.exec(text);
  if (match === null) throw new CedarEvalError(`"${text}" is not a well-formed decimal value`);
  const scaled = Number(match[2]) * 10_000 + Number(match[3]!.padEnd(4, '0'));
  if (!Number.isSafeInteger(scaled)) {
    const big = BigInt(match[2]!) * 10_000n + BigInt(match[3]!.padEnd(4, '0'));
    if (big > I64_MAX + (match[1] === '-' ? 1n : 0n)) throw new CedarEvalError(`decimal "${text}" overflows`);
    throw new Unsupported('a decimal beyond 2^53 ten-thousandths');
  }
  return new Decimal(match[1] === '-' ? -scaled : scaled);
}

/** A number Wardrik passes as a decimal (spend, budgets, number arguments), as Cedar would read `toFixed(4)`. */
export function decimalOf(value: number): Decimal | undefined {
  if (!Number.isFinite(value) || Math.abs(value) >= 9e14) return undefined;
  return parseDecimal(value.toFixed(4));
}

/** Cedar's `==`: structural, and false (not an error) across types. */
export function equal(a: CedarValue, b: CedarValue): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object') return false;
  if (a instanceof Uid) return b instanceof Uid && a.key === b.key;
  if (a instanceof Decimal) return b instanceof Decimal && a.scaled === b.scaled;
  if (b instanceof Uid || b instanceof Decimal) return false;
  if (Array.isArray(a)) return Array.isArray(b) && sameMembers(a, b as readonly CedarValue[]);
  if (Array.isArray(b)) return false;
  const left = a as CedarRecord;
  const right = b as CedarRecord;
  const keys = Object.keys(left);
  if (keys.length !== Object.keys(right).length) return false;
  return keys.every((key) => Object.hasOwn(right, key) && equal(left[key]!, right[key]!));
}

/** Sets are equal when each holds every member of the other (order and repeats do not count). */
function sameMembers(a: readonly CedarValue[], b: readonly CedarValue[]): boolean {
  return a.every((x) => includes(b, x)) && b.every((x) => includes(a, x));
}

export function includes(set: readonly CedarValue[], value: CedarValue): boolean {
  for (const member of set) if (equal(member, value)) return true;
  return false;
}

export function typeName(value: CedarValue): string {
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return 'long';
  if (typeof value === 'string') return 'string';
  if (value instanceof Uid) return 'entity';
  if (value instanceof Decimal) return 'decimal';
  return Array.isArray(value) ? 'set' : 'record';
}

export function asBool(value: CedarValue): boolean {
  if (typeof value !== 'boolean') throw new CedarEvalError(`expected bool, got ${typeName(value)}`);
  return value;
}

export function asLong(value: CedarValue): number {
  if (typeof value !== 'number') throw new CedarEvalError(`expected long, got ${typeName(value)}`);
  return value;
}

export function asSet(value: CedarValue): readonly CedarValue[] {
  if (!Array.isArray(value)) throw new CedarEvalError(`expected set, got ${typeName(value)}`);
  return value as readonly CedarValue[];
}

export function asDecimal(value: CedarValue): Decimal {
  if (!(value instanceof Decimal)) throw new CedarEvalError(`expected decimal, got ${typeName(value)}`);
  return value;
}

export function asUid(value: CedarValue): Uid {
  if (!(value instanceof Uid)) throw new CedarEvalError(`expected entity, got ${typeName(value)}`);
  return value;
}

/** A literal in Cedar's JSON (`{"__entity": …}`, `{"__extn": …}`, arrays, records) as a compiled value. */
export function literal(json: unknown): CedarValue {
  if (typeof json === 'boolean' || typeof json === 'string') return json;
  if (typeof json === 'number') {
    if (!Number.isSafeInteger(json)) throw new Unsupported('a long literal beyond 2^53');
    return json;
  }
  if (Array.isArray(json)) return json.map(literal);
  if (json === null || typeof json !== 'object') throw new Unsupported(`the literal ${JSON.stringify(json)}`);
  const object = json as Record<string, unknown>;
  const entity = object.__entity as { type?: unknown; id?: unknown } | undefined;
  if (entity !== undefined && typeof entity.type === 'string' && typeof entity.id === 'string')
    return new Uid(entity.type, entity.id);
  const extension = object.__extn as { fn?: unknown; arg?: unknown } | undefined;
  if (extension !== undefined) {
    if (extension.fn === 'decimal' && typeof extension.arg === 'string') return parseDecimal(extension.arg);
    throw new Unsupported(`the extension value ${JSON.stringify(extension)}`);
  }
  const record: Record<string, CedarValue> = {};
  for (const [key, value] of Object.entries(object)) record[key] = literal(value);
  return record;
}
