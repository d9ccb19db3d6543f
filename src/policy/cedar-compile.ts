import {
  asBool,
  asDecimal,
  asLong,
  asSet,
  asUid,
  CedarEvalError,
  equal,
  includes,
  literal,
  long,
  parseDecimal,
  typeName,
  Uid,
  Unsupported,
  type CedarRecord,
  type CedarValue,
} from './cedar-values.js';

/** An entity the request knows: its attributes and its ancestors' keys (transitively). */
export interface CedarEntityData {
  readonly attrs: CedarRecord;
  readonly ancestors: readonly string[];
}

/** One request, in the compiled evaluator's values. */
export interface CompiledRequest {
  readonly principal: Uid;
  readonly action: Uid;
  readonly resource: Uid;
  readonly context: CedarRecord;
  /** The entities Wardrik passes to Cedar, by `Uid.key`. */
  readonly entities: ReadonlyMap<string, CedarEntityData>;
}

export type Compiled = (request: CompiledRequest) => CedarValue;

/**
 * Compiles one expression of Cedar's JSON policy format (the EST) into a closure. An operator or
 * extension function outside the supported subset throws `Unsupported` here, at start-up, so the policy
 * set is decided by cedar-wasm instead of by a guess.
 */
export function compileExpression(expr: unknown): Compiled {
  if (expr === null || typeof expr !== 'object' || Array.isArray(expr))
    throw new Unsupported(`the expression ${JSON.stringify(expr)}`);
  const entries = Object.entries(expr as Record<string, unknown>);
  if (entries.length !== 1) throw new Unsupported(`the expression ${JSON.stringify(expr)}`);
  const [op, body] = entries[0]! as [string, Record<string, unknown> & unknown[]];
  switch (op) {
    case 'Value': {
      const value = literal(body);
      return () => value;
    }
    case 'Var':
      return variable(body as unknown as string);
    case 'Set': {
      const items = (body as unknown[]).map(compileExpression);
      return (r) => items.map((item) => item(r));
    }
    case 'Record': {
      const fields = Object.entries(body as Record<string, unknown>).map(
        ([k, v]) => [k, compileExpression(v)] as const,
      );
      return (r) => {
        const record: Record<string, CedarValue> = {};
        for (const [key, field] of fields) record[key] = field(r);
        return record;
      };
    }
    case '!': {
      const arg = compileExpression(body.arg);
      return (r) => !asBool(arg(r));
    }
    case 'neg': {
      const arg = compileExpression(body.arg);
      return (r) => {
        const x = asLong(arg(r));
        return long(-x, () => -BigInt(x));
      };
    }
    case '&&': {
      const [left, right] = pair(body);
      return (r) => asBool(left(r)) && asBool(right(r));
    }
    case '||': {
      const [left, right] = pair(body);
      return (r) => asBool(left(r)) || asBool(right(r));
    }
    case '==': {
      const [left, right] = pair(body);
      return (r) => equal(left(r), right(r));
    }
    case '!=': {
      const [left, right] = pair(body);
      return (r) => !equal(left(r), right(r));
    }
    case '<':
    case '<=':
    case '>':
    case '>=':
      return comparison(op, ...pair(body));
    case '+':
    case '-':
    case '*':
      return arithmetic(op, ...pair(body));
    case 'if-then-else': {
      const [test, then, otherwise] = [body.if, body.then, body.else].map(compileExpression) as [
        Compiled,
        Compiled,
        Compiled,
      ];
      return (r) => (asBool(test(r)) ? then(r) : otherwise(r));
    }
    case '.': {
      const left = compileExpression(body.left);
      const name = body.attr as string;
      return (r) => attribute(left(r), name, r);
    }
    case 'has':
      return has(compileExpression(body.left), typeof body.attr === 'string' ? [body.attr] : (body.attr as string[]));
    case 'in': {
      const [left, right] = pair(body);
      return (r) => isIn(asUid(left(r)), right(r), r);
    }
    case 'is': {
      const left = compileExpression(body.left);
      const type = body.entity_type as string;
      const within = body.in === undefined ? undefined : compileExpression(body.in);
      return (r) => {
        const uid = asUid(left(r));
        return uid.type === type && (within === undefined || isIn(uid, within(r), r));
      };
    }
    case 'like':
      return like(compileExpression(body.left), body.pattern as unknown[]);
    case 'contains': {
      const [left, right] = pair(body);
      return (r) => includes(asSet(left(r)), right(r));
    }
    case 'containsAll': {
      const [left, right] = pair(body);
      return (r) => {
        const set = asSet(left(r));
        return asSet(right(r)).every((item) => includes(set, item));
      };
    }
    case 'containsAny': {
      const [left, right] = pair(body);
      return (r) => {
        const set = asSet(left(r));
        return asSet(right(r)).some((item) => includes(set, item));
      };
    }
    case 'isEmpty': {
      const arg = compileExpression(body.arg);
      return (r) => asSet(arg(r)).length === 0;
    }
    case 'decimal': {
      const arg = args(body, 1)[0]!;
      return (r) => {
        const text = arg(r);
        if (typeof text !== 'string') throw new CedarEvalError(`expected string, got ${typeName(text)}`);
        return parseDecimal(text);
      };
    }
    case 'lessThan':
    case 'lessThanOrEqual':
    case 'greaterThan':
    case 'greaterThanOrEqual':
      return decimalComparison(op, ...(args(body, 2) as [Compiled, Compiled]));
    default:
      throw new Unsupported(`the operator or function "${op}"`);
  }
}

function variable(name: string): Compiled {
  switch (name) {
    case 'principal':
      return (r) => r.principal;
    case 'action':
      return (r) => r.action;
    case 'resource':
      return (r) => r.resource;
    case 'context':
      return (r) => r.context;
    default:
      throw new Unsupported(`the variable ${JSON.stringify(name)}`);
  }
}

function pair(body: Record<string, unknown>): [Compiled, Compiled] {
  return [compileExpression(body.left), compileExpression(body.right)];
}

function args(body: unknown, count: number): Compiled[] {
  if (!Array.isArray(body) || body.length !== count) throw new Unsupported(`a call with ${JSON.stringify(body)}`);
  return body.map(compileExpression);
}

function comparison(op: '<' | '<=' | '>' | '>=', left: Compiled, right: Compiled): Compiled {
  const test = {
    '<': (a: number, b: number) => a < b,
    '<=': (a: number, b: number) => a <= b,
    '>': (a: number, b: number) => a > b,
    '>=': (a: number, b: number) => a >= b,
  }[op];
  return (r) => {
    const a = left(r);
    const b = right(r);
    // Newer Cedar compares more than longs with `<` (datetimes, durations): those are not ours to guess.
    if (typeof a !== 'number' || typeof b !== 'number') throw new Unsupported(`${op} on ${typeName(a)}`);
    return test(a, b);
  };
}

function arithmetic(op: '+' | '-' | '*', left: Compiled, right: Compiled): Compiled {
  return (r) => {
    const a = asLong(left(r));
    const b = asLong(right(r));
    if (op === '+') return long(a + b, () => BigInt(a) + BigInt(b));
    if (op === '-') return long(a - b, () => BigInt(a) - BigInt(b));
    return long(a * b, () => BigInt(a) * BigInt(b));
  };
}

function decimalComparison(
  op: 'lessThan' | 'lessThanOrEqual' | 'greaterThan' | 'greaterThanOrEqual',
  left: Compiled,
  right: Compiled,
): Compiled {
  return (r) => {
    const a = asDecimal(left(r)).scaled;
    const b = asDecimal(right(r)).scaled;
    if (op === 'lessThan') return a < b;
    if (op === 'lessThanOrEqual') return a <= b;
    if (op === 'greaterThan') return a > b;
    return a >= b;
  };
}

/** `x.name`: a record's field or an entity's attribute; absent is an error, as in Cedar. */
function attribute(value: CedarValue, name: string, r: CompiledRequest): CedarValue {
  const record = fields(value, r);
  if (record === undefined) throw new CedarEvalError(`entity ${(value as Uid).key} does not exist`);
  if (!Object.hasOwn(record, name))
    throw new CedarEvalError(`${typeName(value)} does not have the attribute \`${name}\``);
  return record[name]!;
}

/** The fields `.` and `has` read: a record's own, an entity's attributes (undefined for an unknown entity). */
function fields(value: CedarValue, r: CompiledRequest): CedarRecord | undefined {
  if (value instanceof Uid) return r.entities.get(value.key)?.attrs;
  if (typeof value !== 'object' || Array.isArray(value) || !(value.constructor === Object))
    throw new CedarEvalError(`expected record or entity, got ${typeName(value)}`);
  return value as CedarRecord;
}

function has(left: Compiled, path: readonly string[]): Compiled {
  return (r) => {
    let value = left(r);
    for (const name of path) {
      const record = fields(value, r);
      if (record === undefined || !Object.hasOwn(record, name)) return false;
      value = record[name]!;
    }
    return true;
  };
}

/** `e in x`: `e` is `x` or a descendant of it; `x` an entity or a set of them. */
function isIn(uid: Uid, within: CedarValue, r: CompiledRequest): boolean {
  const ancestors = r.entities.get(uid.key)?.ancestors;
  const one = (target: CedarValue) => {
    const t = asUid(target);
    return t.key === uid.key || (ancestors !== undefined && ancestors.includes(t.key));
  };
  if (Array.isArray(within)) {
    let found = false;
    // Every member is checked to be an entity, as Cedar does, before the answer counts.
    for (const member of within as readonly CedarValue[]) if (one(member)) found = true;
    return found;
  }
  return one(within);
}

function like(left: Compiled, pattern: readonly unknown[]): Compiled {
  const source = pattern
    .map((part) => {
      if (part === 'Wildcard') return '[\\s\\S]*';
      const text = (part as { Literal?: unknown }).Literal;
      if (typeof text !== 'string') throw new Unsupported(`the like pattern part ${JSON.stringify(part)}`);
      return [...text].map((c) => c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('');
    })
    .join('');
  const regex = new RegExp(`^${source}$`, 'u');
  return (r) => {
    const text = left(r);
    if (typeof text !== 'string') throw new CedarEvalError(`expected string, got ${typeName(text)}`);
    return regex.test(text);
  };
}
