import { ConfigurationError } from '../errors.js';
import { CALL_TIMEOUT_RULE, describeRule, meetsRule } from '../options.js';
import { deepFreeze } from './freeze.js';
import { NoArguments } from './no-arguments.js';
import type { ToolContext } from './context.js';
import { dtoSchema } from './schema.js';

export type { Annotations, DtoClass, JsonSchema } from './tool-shapes.js';
import type { Annotations, DtoClass, JsonSchema } from './tool-shapes.js';

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
  /** The DTO class the arguments are checked against, when the tool has one. */
  readonly input?: DtoClass;
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
  /** A DTO class (checked with class-validator) or a JSON Schema object. No arguments when absent. */
  readonly input?: DtoClass | JsonSchema;
  readonly title?: string;
  readonly annotations?: Annotations;
}

const NO_ARGUMENTS: JsonSchema = deepFreeze({ type: 'object', properties: {}, additionalProperties: false });

/** Builds a tool value. Throws when the name, the description or `run` is missing. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- `any` lets a tool's arguments be typed by its run function
export function defineTool<Args = any>(options: ToolOptions<Args>): ToolDefinition<Args> {
  if (options === null || typeof options !== 'object') {
    throw new ConfigurationError('defineTool takes an options object: defineTool({ name, description, run }).');
  }
  const label = typeof options.name === 'string' && options.name !== '' ? `Tool "${options.name}"` : 'A tool';
  if (typeof options.name !== 'string' || options.name === '') {
    throw new ConfigurationError(`${label} has no name. Pass defineTool({ name: 'find_order', ... }).`);
  }
  if (typeof options.description !== 'string' || options.description.trim() === '') {
    throw new ConfigurationError(
      `${label} has no description. Pass a description: it is what the model reads to decide when to call it.`,
    );
  }
  if (typeof options.run !== 'function') {
    throw new ConfigurationError(`${label} has no run function. Pass run: (args, ctx) => result.`);
  }
  checkAnnotations(label, options.annotations ?? {});
  const input = options.input;
  let dto: DtoClass | undefined;
  let inputSchema: JsonSchema;
  if (input === undefined || input === NoArguments) {
    inputSchema = NO_ARGUMENTS;
  } else if (typeof input === 'function') {
    dto = input;
    inputSchema = dtoSchema(input);
  } else if (input !== null && typeof input === 'object' && !Array.isArray(input)) {
    inputSchema = deepFreeze(structuredClone(input) as JsonSchema);
  } else {
    throw new ConfigurationError(
      `${label}: input must be a DTO class or a JSON Schema object; got ${input === null ? 'null' : typeof input}.`,
    );
  }
  return freezeTool({
    name: options.name,
    ...(options.title === undefined ? {} : { title: options.title }),
    description: options.description,
    ...(dto === undefined ? {} : { input: dto }),
    inputSchema,
    annotations: freezeAnnotations(options.annotations ?? {}),
    run: options.run,
  });
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
    throw new TypeError('Private data is keyed by your own symbol or class, such as Symbol("my-package"), so packages never clash.');
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
  const { timeout, resources, labels, maxCostUsd } = annotations;
  if (maxCostUsd !== undefined && !meetsRule(maxCostUsd, { min: 0 })) {
    throw new ConfigurationError(`${label}: the most a call may cost is a number of US dollars of at least 0 (@Cost({ maxUsd: 0.1 })); got ${String(maxCostUsd)}.`);
  }
  if (timeout !== undefined && !meetsRule(timeout, CALL_TIMEOUT_RULE)) {
    throw new ConfigurationError(`${label}: the timeout is ${describeRule(CALL_TIMEOUT_RULE)} (@Timeout(5000)); got ${String(timeout)}.`);
  }
  if (resources !== undefined && typeof resources !== 'function') {
    throw new ConfigurationError(`${label}: resources is a function of the arguments, such as @Resources(args => [args.path]).`);
  }
  if (labels !== undefined && !(Array.isArray(labels) && labels.every((l) => typeof l === 'string' && l !== ''))) {
    throw new ConfigurationError(`${label}: labels are non-empty strings, such as @Labels('outside').`);
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
