import { ConfigurationError, UsageError } from '../errors.js';
import { CALL_TIMEOUT_RULE, describeRule, meetsRule } from '../options.js';
import { isFieldPath } from './field-paths.js';
import { deepFreeze } from './freeze.js';
import { NoArguments } from './no-arguments.js';
import type { ToolContext } from './context.js';
import { closestNames, editDistance } from './names.js';
import { dtoSchema } from './schema.js';
import { isStandardSchema, standardJsonSchema } from './standard-schema.js';

export type { Annotations, DtoClass, JsonSchema, StandardResult, StandardSchema } from './tool-shapes.js';
import type { Annotations, DtoClass, JsonSchema, StandardSchema } from './tool-shapes.js';

/** What a tool does with its checked arguments. */
export type ToolFunction<Args = never> = (args: Args, ctx: ToolContext) => unknown;

/**
 * A tool value: immutable; change one with `annotate` or `putPrivate`, which return a new value.
 * `name` is stable: saved runs and policies refer to it.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- `any` lets a tool's arguments be typed by its run function
export interface ToolDefinition<Args = any> {
  readonly name: string;
  readonly title?: string;
  readonly description: string;
  /** What checks the arguments besides `inputSchema`, when the tool has one: a DTO class or a Standard Schema (a Zod object). */
  readonly input?: DtoClass | StandardSchema;
  /** The JSON Schema the model sees, self-contained (no `$ref` outside itself). */
  readonly inputSchema: JsonSchema;
  readonly annotations: Annotations;
  readonly run: ToolFunction<Args>;
}

/** What `defineTool` takes. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- `any` lets a tool's arguments be typed by its run function
export interface ToolOptions<Args = any> {
  /** 1 to 55 letters, digits, `_` and `-`. Stable: saved runs and policies refer to it. */
  readonly name: string;
  /** What the model reads to decide when to call it. */
  readonly description: string;
  readonly run: ToolFunction<Args>;
  /**
   * The arguments: a Zod object schema (`.describe()` documents a field for the model) or any Standard
   * Schema that gives a JSON Schema, a DTO class (checked with class-validator), or a JSON Schema object.
   * No arguments when absent. An input that is not an object schema is skipped at registration.
   */
  readonly input?: StandardSchema<Args> | DtoClass<Args> | JsonSchema;
  /** A display name. */
  readonly title?: string;
  /** It changes nothing: no approval by default (explicit policy rules still apply), and retried. `annotations.readOnly`. */
  readonly readOnly?: boolean;
  /** Safe to retry with the same `ctx.idempotencyKey` without repeating its effects, so retried. `annotations.idempotent`. */
  readonly idempotent?: boolean;
  readonly annotations?: Annotations;
}

/** The keys `defineTool` takes; any other is refused, so a typo (`readonly`) is not silently ignored. */
export const TOOL_OPTION_KEYS: readonly string[] = Object.freeze([
  'name',
  'description',
  'title',
  'input',
  'readOnly',
  'idempotent',
  'annotations',
  'run',
]);

const NO_ARGUMENTS: JsonSchema = deepFreeze({ type: 'object', properties: {}, additionalProperties: false });

/**
 * Builds a tool value. Throws a `ConfigurationError` when the name, the description or `run` is missing,
 * on a key it does not know, and when the input cannot give a JSON Schema.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- `any` lets a tool's arguments be typed by its run function
export function defineTool<Args = any>(options: ToolOptions<Args>): ToolDefinition<Args> {
  return buildTool(options, TOOL_OPTION_KEYS, 'defineTool');
}

/** @internal `defineTool` for a caller that takes more keys (`wardrik.tool` takes `toolset`) and has stripped them. */
export function buildTool<Args>(
  options: ToolOptions<Args>,
  keys: readonly string[],
  caller: string,
): ToolDefinition<Args> {
  if (options === null || typeof options !== 'object') {
    throw new ConfigurationError(`${caller} takes an options object: ${caller}({ name, description, run }).`);
  }
  const label = typeof options.name === 'string' && options.name !== '' ? `Tool "${options.name}"` : 'A tool';
  checkKeys(label, options, keys, caller);
  if (typeof options.name !== 'string' || options.name === '') {
    throw new ConfigurationError(`${label} has no name. Pass ${caller}({ name: 'find_order', ... }).`);
  }
  if (typeof options.description !== 'string' || options.description.trim() === '') {
    throw new ConfigurationError(
      `${label} has no description. Pass a description: it is what the model reads to decide when to call it.`,
    );
  }
  if (typeof options.run !== 'function') {
    throw new ConfigurationError(`${label} has no run function. Pass run: (args, ctx) => result.`);
  }
  const annotations = withHints(label, options);
  checkAnnotations(label, annotations);
  const input = options.input;
  let checkedBy: DtoClass | StandardSchema | undefined;
  let inputSchema: JsonSchema;
  if (input === undefined || input === NoArguments) {
    inputSchema = NO_ARGUMENTS;
  } else if (isStandardSchema(input)) {
    // Checked by the schema itself; one that only describes (no validate) is checked by its JSON Schema.
    if (typeof input['~standard'].validate === 'function') checkedBy = input;
    inputSchema = standardJsonSchema(label, input);
  } else if (typeof input === 'function') {
    checkedBy = input as DtoClass;
    inputSchema = dtoSchema(input as DtoClass);
  } else if (input !== null && typeof input === 'object' && !Array.isArray(input)) {
    inputSchema = deepFreeze(structuredClone(input) as JsonSchema);
  } else {
    throw new ConfigurationError(
      `${label}: input must be a DTO class or a JSON Schema object; got ${input === null ? 'null' : typeof input}. A Zod object schema (any Standard Schema) works too.`,
    );
  }
  return freezeTool({
    name: options.name,
    ...(options.title === undefined ? {} : { title: options.title }),
    description: options.description,
    ...(checkedBy === undefined ? {} : { input: checkedBy }),
    inputSchema,
    annotations: freezeAnnotations(annotations),
    run: options.run,
  });
}

/** Refuses a key `keys` lacks, naming the nearest one it may be a typo of. */
function checkKeys(label: string, options: object, keys: readonly string[], caller: string): void {
  for (const key of Object.keys(options)) {
    if (keys.includes(key)) continue;
    const [nearest] = closestNames(key, keys, 1);
    const hint =
      nearest !== undefined &&
      editDistance(key.toLowerCase(), nearest.toLowerCase()) <= Math.max(2, Math.floor(key.length / 3))
        ? ` Did you mean "${nearest}"?`
        : '';
    throw new ConfigurationError(
      `${label}: ${caller} does not take the key "${key.slice(0, 60)}".${hint} It takes ${keys.join(', ')}.`,
    );
  }
}

/** The annotations with the top-level `readOnly` and `idempotent` in them; the same fact given twice must agree. */
function withHints(label: string, options: Pick<ToolOptions, 'readOnly' | 'idempotent' | 'annotations'>): Annotations {
  const annotations: Record<string, unknown> = { ...options.annotations };
  for (const hint of ['readOnly', 'idempotent'] as const) {
    const value = options[hint];
    if (value === undefined) continue;
    if (typeof value !== 'boolean')
      throw new ConfigurationError(`${label}: ${hint} is true or false; got ${typeof value}.`);
    if (annotations[hint] !== undefined && annotations[hint] !== value) {
      throw new ConfigurationError(
        `${label}: ${hint} is ${String(value)} but annotations.${hint} is ${JSON.stringify(annotations[hint])}; give it once.`,
      );
    }
    annotations[hint] = value;
  }
  return annotations as Annotations;
}

/** A copy of the tool with these annotations added; keys it already has are replaced. */
export function annotate<Args>(tool: ToolDefinition<Args>, annotations: Annotations): ToolDefinition<Args> {
  const next = freezeTool({ ...tool, annotations: freezeAnnotations({ ...tool.annotations, ...annotations }) });
  copyPrivate(tool, next);
  return next;
}

/** The tool's annotation `key`, or `fallback` when the tool does not set it. */
export function annotation<K extends keyof Annotations, F = undefined>(
  tool: ToolDefinition,
  key: K,
  fallback?: F,
): NonNullable<Annotations[K]> | F {
  const value = tool.annotations[key];
  return (value === undefined ? fallback : value) as NonNullable<Annotations[K]> | F;
}

/** Whether a call is safe to repeat: the tool is read-only or idempotent. Only these are retried. */
export function isRepeatable(tool: ToolDefinition): boolean {
  return tool.annotations.readOnly === true || tool.annotations.idempotent === true;
}

/** A private-data key: your own symbol or class, so packages never clash. */
export type PrivateKey = symbol | (abstract new (...args: never[]) => unknown);

const privateData = new WeakMap<ToolDefinition, ReadonlyMap<PrivateKey, unknown>>();

function checkKey(key: PrivateKey): void {
  if (typeof key !== 'symbol' && typeof key !== 'function') {
    throw new UsageError(
      `Private data is keyed by your own symbol or class, such as Symbol("my-package"), so packages never clash; got ${typeof key === 'string' ? `the string ${JSON.stringify(key)}` : typeof key}.`,
    );
  }
}

/** The private value under `key`, or `fallback`. */
export function getPrivate<T>(tool: ToolDefinition, key: PrivateKey, fallback?: T): T | undefined {
  checkKey(key);
  const data = privateData.get(tool);
  return data !== undefined && data.has(key) ? (data.get(key) as T) : fallback;
}

/** A copy of the tool with `value` under `key` in its private data. */
export function putPrivate<Args>(tool: ToolDefinition<Args>, key: PrivateKey, value: unknown): ToolDefinition<Args> {
  checkKey(key);
  const next = freezeTool({ ...tool });
  privateData.set(next, new Map(privateData.get(tool) ?? []).set(key, value));
  return next;
}

/** A copy of the tool with the value under `key` replaced by `update(value)`; `update(fallback)` when there is none. */
export function updatePrivate<Args, T>(
  tool: ToolDefinition<Args>,
  key: PrivateKey,
  fallback: T,
  update: (value: T) => T,
): ToolDefinition<Args> {
  return putPrivate(tool, key, update(getPrivate(tool, key, fallback) as T));
}

function copyPrivate(from: ToolDefinition, to: ToolDefinition): void {
  const data = privateData.get(from);
  if (data !== undefined) privateData.set(to, data);
}

function checkAnnotations(label: string, annotations: Annotations): void {
  const { timeout, resources, labels, maxCostUsd, outsideFields } = annotations;
  if (maxCostUsd !== undefined && !meetsRule(maxCostUsd, { min: 0 })) {
    throw new ConfigurationError(
      `${label}: the most a call may cost is a number of US dollars of at least 0 (@Cost({ maxUsd: 0.1 })); got ${String(maxCostUsd)}.`,
    );
  }
  if (timeout !== undefined && !meetsRule(timeout, CALL_TIMEOUT_RULE)) {
    throw new ConfigurationError(
      `${label}: the timeout is ${describeRule(CALL_TIMEOUT_RULE)} (@Timeout(5000)); got ${String(timeout)}.`,
    );
  }
  if (resources !== undefined && typeof resources !== 'function') {
    throw new ConfigurationError(
      `${label}: resources is a function of the arguments, such as @Resources(args => [args.path]).`,
    );
  }
  if (labels !== undefined && !(Array.isArray(labels) && labels.every((l) => typeof l === 'string' && l !== ''))) {
    throw new ConfigurationError(`${label}: labels are non-empty strings, such as @Labels('outside').`);
  }
  if (outsideFields !== undefined) {
    const paths: unknown[] = Array.isArray(outsideFields) ? outsideFields : [outsideFields];
    const bad = paths.find((path) => !isFieldPath(path));
    if (bad !== undefined || paths.length === 0)
      throw new ConfigurationError(
        `${label}: the outside field ${paths.length === 0 ? '(none given)' : JSON.stringify(bad)} is not a path: name at least one, as dot-separated names with [] for every element of a list, such as @OutsideFields('transactions[].subject') or '[].body'.`,
      );
  }
}

function freezeTool<Args>(tool: ToolDefinition<Args>): ToolDefinition<Args> {
  return Object.freeze(tool);
}

function freezeAnnotations(annotations: Annotations): Annotations {
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(annotations)) {
    if (value === undefined) continue;
    copy[key] = Array.isArray(value) ? Object.freeze([...(value as unknown[])]) : value;
  }
  return Object.freeze(copy) as Annotations;
}
