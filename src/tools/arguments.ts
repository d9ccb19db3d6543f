import type { ErrorObject, ValidateFunction } from 'ajv';
import type { ValidationError, ValidatorOptions } from 'class-validator';
import { ConfigurationError, type FieldIssue } from '../errors.js';
import { classTransformer, classValidator, transformerMetadata } from './dto-libraries.js';
import { compiledSchema, schemaProblem } from './json-schema.js';
import { dtoSchema } from './schema.js';
import { isStandardSchema } from './standard-schema.js';
import type { DtoClass, JsonSchema, StandardResult, StandardSchema, ToolDefinition } from './tool.js';
import { surelyValid } from './validity-shortcut.js';

/**
 * Checks a call's arguments against the tool's input: the DTO, Standard Schema (a Zod object) or JSON
 * Schema the model was shown.
 * Arguments are refused whole, with every failing field, before any tool code runs.
 */

export type CheckResult =
  { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly issues: readonly FieldIssue[] };

export interface ArgumentChecker {
  check(raw: unknown): CheckResult | Promise<CheckResult>;
}

/** Bounds on what a model may send: deeper or larger arguments are refused before parsing into a DTO. */
export const ARGUMENT_LIMITS = Object.freeze({ depth: 32, values: 10_000, characters: 1_000_000 });

/**
 * JSON text of arguments longer than this many characters is refused unread: it cannot hold arguments
 * within `ARGUMENT_LIMITS` (their characters, and the syntax of their values) but in pathological cases.
 */
export const MAX_ARGUMENTS_TEXT = ARGUMENT_LIMITS.characters + 10 * ARGUMENT_LIMITS.values;

/**
 * The one key of what is kept in place of arguments over the limits (`journaledArguments`). Arguments
 * that hold it are refused as too large, so a journaled note that is run again is refused the same way.
 */
export const CUT_KEY = '(cut by Wardrik)';

/** Keys that could reach an object's prototype through class-transformer; never valid argument names. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

const checkers = new WeakMap<ToolDefinition, ArgumentChecker>();

/**
 * The tool's checker, built once. Throws a `ConfigurationError` saying why when the tool's input can't
 * be used (not an object schema, an invalid JSON Schema): such a tool is skipped at registration.
 */
export function argumentChecker(tool: ToolDefinition): ArgumentChecker {
  let checker = checkers.get(tool);
  if (checker === undefined) {
    const input = tool.input;
    checker =
      input === undefined
        ? schemaChecker(tool.inputSchema)
        : isStandardSchema(input)
          ? standardChecker(input, tool.inputSchema)
          : dtoChecker(input);
    checkers.set(tool, checker);
  }
  return checker;
}

/** Applies the shape and size limits every call's arguments must pass before any parsing into a DTO. */
export function inspectArguments(raw: unknown): readonly FieldIssue[] {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    return [{ path: '(arguments)', message: `must be a JSON object of named arguments; got ${describeValue(raw)}` }];
  }
  if (Object.hasOwn(raw, CUT_KEY))
    return [
      {
        path: '(arguments)',
        message: `were too large, so only a note was kept (${String((raw as Record<string, unknown>)[CUT_KEY]).slice(0, 200)}); send less`,
      },
    ];
  const walk: Walk = { values: 0, characters: 0, deep: false, trail: [], issues: undefined };
  if (!walkValue(walk, raw, 0)) {
    return [
      {
        path: '(arguments)',
        message: `are too large (limits: ${ARGUMENT_LIMITS.values} values, ${ARGUMENT_LIMITS.characters} characters); send less`,
      },
    ];
  }
  return walk.issues ?? NO_ISSUES;
}

const NO_ISSUES: readonly FieldIssue[] = Object.freeze([]);

/** Where the limits walk is: what it has counted, and the path to the value it is at. */
interface Walk {
  values: number;
  characters: number;
  /** A value is nested deeper than the limit. */
  deep: boolean;
  /** The path as parts, spelled out only for an issue: most arguments have none. */
  readonly trail: (string | number)[];
  issues: FieldIssue[] | undefined;
}

/** Counts `value` and what it holds against the limits; false once they are passed. */
function walkValue(walk: Walk, value: unknown, depth: number): boolean {
  walk.values++;
  // Counted before the limit test, so one long string (the last value included) is refused too.
  if (typeof value === 'string') walk.characters += value.length;
  if (walk.values > ARGUMENT_LIMITS.values || walk.characters > ARGUMENT_LIMITS.characters) return false;
  if (value === null || typeof value !== 'object') return true;
  if (depth > ARGUMENT_LIMITS.depth) {
    walk.deep = true;
    walkIssue(walk, `is nested deeper than ${ARGUMENT_LIMITS.depth} levels; send a flatter value`);
    return true;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      walk.trail.push(i);
      const within = walkValue(walk, value[i], depth + 1);
      walk.trail.pop();
      if (!within) return false;
    }
    return true;
  }
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    walk.characters += key.length;
    walk.trail.push(key);
    let within = true;
    if (FORBIDDEN_KEYS.has(key)) walkIssue(walk, `"${key}" is not allowed as an argument name; remove it`);
    else within = walkValue(walk, (value as Record<string, unknown>)[key], depth + 1);
    walk.trail.pop();
    if (!within) return false;
  }
  return true;
}

/**
 * Arguments as the journal keeps them: whole when within `ARGUMENT_LIMITS`, else a small note in their
 * place, `{ "(cut by Wardrik)": why }`. Arguments refused for size or depth were kept whole before: 20
 * of 10 MB grew the process by 249 MB and SQLite by 211 MB, and 10,000 levels overflowed the stack of
 * the journal's JSON writer, failing the turn at every recovery.
 */
export function journaledArguments(value: unknown): unknown {
  if (typeof value === 'string')
    return value.length > MAX_ARGUMENTS_TEXT
      ? cutNote(`${value.length} characters of JSON, over ${MAX_ARGUMENTS_TEXT}`)
      : value;
  if (value === null || typeof value !== 'object') return value;
  const walk: Walk = { values: 0, characters: 0, deep: false, trail: [], issues: undefined };
  if (!walkValue(walk, value, 0))
    return cutNote(`more than ${ARGUMENT_LIMITS.values} values or ${ARGUMENT_LIMITS.characters} characters`);
  return walk.deep ? cutNote(`nested deeper than ${ARGUMENT_LIMITS.depth} levels`) : value;
}

/** A model's arguments text as an agent's turn journals it: whole, or the note when it is too long to hold arguments within the limits. */
export function journaledArgumentsText(text: string): string {
  return text.length > MAX_ARGUMENTS_TEXT ? JSON.stringify(journaledArguments(text)) : text;
}

function cutNote(why: string): Record<string, string> {
  return { [CUT_KEY]: `the arguments were over the limits (${why}); only this note was kept` };
}

function walkIssue(walk: Walk, message: string): void {
  const path = walk.trail.reduce<string>(
    (at, part) => (typeof part === 'number' ? `${at}[${part}]` : at === '' ? part : `${at}.${part}`),
    '',
  );
  (walk.issues ??= []).push({ path, message });
}

const VALIDATOR_OPTIONS: ValidatorOptions = Object.freeze({
  whitelist: true,
  forbidNonWhitelisted: true,
  forbidUnknownValues: true,
  validationError: { target: false, value: true },
});

/**
 * A DTO's checker: class-validator first (its messages are the app's), then the DTO's own JSON Schema,
 * the one the model is shown. class-validator alone let through what that schema refuses: an array
 * where a nested object is required (`address: []`, `lines: [[]]`), unknown keys named like
 * `Object.prototype` members (`toString`: its whitelist looks them up in a plain object, finds the
 * prototype's, and drops them), and a date where the schema says `date-time` (`@IsDateString`). So
 * arguments that pass are always what the schema says.
 */
function dtoChecker(dto: DtoClass): ArgumentChecker {
  const { validate, validateSync } = classValidator();
  const { plainToInstance } = classTransformer();
  // validateSync skips async validators, so a DTO with any, itself or in a nested DTO, uses the async path.
  const isAsync = hasAsyncConstraint(dto, new Set());
  const nested = nestedRules(dto);
  const schema = dtoSchema(dto);
  const problem = schemaProblem(schema);
  if (problem !== undefined) throw new ConfigurationError(problem);
  let validator: ValidateFunction | undefined;
  const finish = (raw: unknown, instance: object, errors: readonly ValidationError[]): CheckResult => {
    const issues = flatten(errors, '');
    if (nested.length > 0) missingNested(instance, nested, '', issues, 0);
    if (issues.length > 0) return { ok: false, issues };
    validator ??= compiledSchema(schema);
    return validator(raw)
      ? { ok: true, value: instance }
      : { ok: false, issues: (validator.errors ?? []).map(ajvIssue) };
  };
  return {
    check(raw) {
      const issues = inspectArguments(raw);
      if (issues.length > 0) return { ok: false, issues };
      const instance = plainToInstance(dto, raw as object) as object;
      if (isAsync) return validate(instance, VALIDATOR_OPTIONS).then((errors) => finish(raw, instance, errors));
      // Valid arguments, the usual case, skip validateSync's own bookkeeping; any others get its errors.
      return finish(raw, instance, surelyValid(instance) ? NO_ERRORS : validateSync(instance, VALIDATOR_OPTIONS));
    },
  };
}

const NO_ERRORS: readonly ValidationError[] = Object.freeze([]);

/** A `@ValidateNested` property: the class of its value, whether it is an array of them, and whether it may be left out. */
interface NestedRule {
  readonly property: string;
  readonly child: Function | undefined;
  readonly each: boolean;
  readonly required: boolean;
}

const nestedRuleCache = new WeakMap<Function, readonly NestedRule[]>();

/**
 * class-validator lets a missing nested object through `@ValidateNested` unless it is also `@IsDefined`
 * (pitfall 4 of STACK.md), while the schema tells the model it is required. Wardrik checks it itself,
 * rather than adding `@IsDefined` to the app's DTO, which would change validation everywhere else the
 * app uses that class.
 */
function nestedRules(dto: Function): readonly NestedRule[] {
  let rules = nestedRuleCache.get(dto);
  if (rules === undefined) {
    const { getMetadataStorage, ValidationTypes } = classValidator();
    const metadatas = getMetadataStorage().getTargetValidationMetadatas(dto, '', true, false);
    rules = metadatas
      .filter((meta) => meta.type === ValidationTypes.NESTED_VALIDATION)
      .map((meta) => {
        const own = metadatas.filter((other) => other.propertyName === meta.propertyName).map((other) => other.type);
        return {
          property: meta.propertyName,
          child: transformerMetadata()
            .findTypeMetadata(meta.target as Function, meta.propertyName)
            ?.typeFunction() as Function | undefined,
          each: meta.each === true,
          required: !own.includes(ValidationTypes.IS_DEFINED) && !own.includes(ValidationTypes.CONDITIONAL_VALIDATION),
        };
      });
    nestedRuleCache.set(dto, rules);
  }
  return rules;
}

function missingNested(
  value: object,
  rules: readonly NestedRule[],
  path: string,
  out: FieldIssue[],
  depth: number,
): void {
  if (depth > ARGUMENT_LIMITS.depth) return;
  for (const rule of rules) {
    const child = (value as Record<string, unknown>)[rule.property];
    const at = path === '' ? rule.property : `${path}.${rule.property}`;
    if (child === undefined || child === null) {
      if (rule.required && !out.some((issue) => issue.path === at))
        out.push({ path: at, message: 'is required (it is missing)' });
      continue;
    }
    const childRules = rule.child === undefined ? [] : nestedRules(rule.child);
    if (childRules.length === 0) continue;
    if (rule.each && Array.isArray(child)) {
      child.forEach((item, i) => {
        if (item !== null && typeof item === 'object')
          missingNested(item as object, childRules, `${at}[${i}]`, out, depth + 1);
      });
    } else if (typeof child === 'object') {
      missingNested(child, childRules, at, out, depth + 1);
    }
  }
}

function hasAsyncConstraint(dto: Function, seen: Set<Function>): boolean {
  if (seen.has(dto)) return false;
  seen.add(dto);
  const { getMetadataStorage, ValidationTypes } = classValidator();
  const storage = getMetadataStorage();
  return storage.getTargetValidationMetadatas(dto, '', true, false).some((meta) => {
    if (
      meta.constraintCls !== undefined &&
      storage.getTargetValidatorConstraints(meta.constraintCls).some((c) => c.async)
    )
      return true;
    if (meta.type !== ValidationTypes.NESTED_VALIDATION) return false;
    const nested = transformerMetadata()
      .findTypeMetadata(meta.target as Function, meta.propertyName)
      ?.typeFunction();
    return typeof nested === 'function' && hasAsyncConstraint(nested, seen);
  });
}

function flatten(errors: readonly ValidationError[], parent: string, out: FieldIssue[] = []): FieldIssue[] {
  for (const error of errors) {
    const path = /^\d+$/.test(error.property)
      ? `${parent}[${error.property}]`
      : parent === ''
        ? error.property
        : `${parent}.${error.property}`;
    for (const [constraint, message] of Object.entries(error.constraints ?? {})) {
      out.push({
        path,
        message: constraint === 'whitelistValidation' ? UNKNOWN_ARGUMENT : withValue(message, error.value),
      });
    }
    if (error.children !== undefined && error.children.length > 0) flatten(error.children, path, out);
  }
  return out;
}

const UNKNOWN_ARGUMENT = 'is not an argument of this tool; remove it';

function withValue(message: string, value: unknown): string {
  return value === undefined ? `${message} (it is missing)` : `${message} (got ${describeValue(value)})`;
}

function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = typeof value === 'string' ? JSON.stringify(value) : safeJson(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}

/** A JSON Schema's checker: the schema is read at once, compiled on the first call (see json-schema.ts). */
function schemaChecker(schema: JsonSchema): ArgumentChecker {
  requireObjectSchema(schema);
  // Checked in the draft its `$schema` names (see json-schema.ts); the schema as given, `$schema`
  // included, is what models and MCP clients see.
  const problem = schemaProblem(schema);
  if (problem !== undefined) throw new ConfigurationError(problem);
  let validator: ValidateFunction | undefined;
  return {
    check(raw) {
      const issues = inspectArguments(raw);
      if (issues.length > 0) return { ok: false, issues };
      validator ??= compiledSchema(schema);
      return validator(raw) ? { ok: true, value: raw } : { ok: false, issues: (validator.errors ?? []).map(ajvIssue) };
    },
  };
}

function requireObjectSchema(schema: JsonSchema): void {
  if (schema.type !== 'object') {
    throw new ConfigurationError(
      `its input is not an object schema (type: ${JSON.stringify(schema.type ?? null)}); a tool's arguments are named, so give an object schema, such as z.object({ ... }) or { type: 'object', properties: { ... } }`,
    );
  }
}

/**
 * A Standard Schema's checker (a Zod object): the limits, then the schema's own `validate`, whose value
 * (defaults and transforms applied) is what the tool gets. Its JSON Schema, the one the model sees,
 * must be an object schema and a valid JSON Schema, as any tool's.
 */
function standardChecker(schema: StandardSchema, inputSchema: JsonSchema): ArgumentChecker {
  requireObjectSchema(inputSchema);
  const problem = schemaProblem(inputSchema, 'input schema', false);
  if (problem !== undefined) throw new ConfigurationError(problem);
  const validate = schema['~standard'].validate!;
  const finish = (raw: unknown, result: StandardResult<unknown>): CheckResult =>
    result.issues
      ? { ok: false, issues: result.issues.map((issue) => standardIssue(raw, issue)) }
      : { ok: true, value: result.value };
  return {
    check(raw) {
      const issues = inspectArguments(raw);
      if (issues.length > 0) return { ok: false, issues };
      const result = validate.call(schema['~standard'], raw);
      return isThenable(result) ? Promise.resolve(result).then((done) => finish(raw, done)) : finish(raw, result);
    },
  };
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== null && typeof value === 'object' && typeof (value as PromiseLike<unknown>).then === 'function';
}

/** A Standard Schema issue as a field issue, in the words DTO issues use: the path, the library's message and what was sent. */
function standardIssue(
  raw: unknown,
  issue: {
    readonly message: string;
    readonly path?: readonly (PropertyKey | { readonly key: PropertyKey })[] | undefined;
  },
): FieldIssue {
  const keys = (issue.path ?? []).map((part) => (typeof part === 'object' && part !== null ? part.key : part));
  let path = '';
  let value: unknown = raw;
  for (const key of keys) {
    const name = typeof key === 'symbol' ? key.toString() : String(key);
    path = typeof key === 'number' || /^\d+$/.test(name) ? `${path}[${name}]` : path === '' ? name : `${path}.${name}`;
    value =
      value !== null && typeof value === 'object' && Object.hasOwn(value, name)
        ? (value as Record<string, unknown>)[name]
        : undefined;
  }
  const message = String(issue.message).slice(0, 300);
  return path === '' ? { path: '(arguments)', message } : { path, message: withValue(message, value) };
}

function ajvIssue(error: ErrorObject): FieldIssue {
  const base = error.instancePath
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : path === '' ? part : `${path}.${part}`), '');
  const join = (child: string): string => (base === '' ? child : `${base}.${child}`);
  if (error.keyword === 'required')
    return { path: join(String(error.params.missingProperty)), message: 'is required (it is missing)' };
  if (error.keyword === 'additionalProperties')
    return { path: join(String(error.params.additionalProperty)), message: UNKNOWN_ARGUMENT };
  if (error.keyword === 'unevaluatedProperties')
    return { path: join(String(error.params.unevaluatedProperty)), message: UNKNOWN_ARGUMENT };
  return { path: base === '' ? '(arguments)' : base, message: error.message ?? `fails the "${error.keyword}" rule` };
}

/** Checks arguments against a JSON Schema alone, such as the one kept with an inbox item for a person's edits. */
export function checkAgainstSchema(schema: JsonSchema, raw: unknown): CheckResult {
  try {
    return schemaChecker(schema).check(raw) as CheckResult;
  } catch (error) {
    return { ok: false, issues: [{ path: '(arguments)', message: `cannot be checked: ${(error as Error).message}` }] };
  }
}
