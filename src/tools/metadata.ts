import 'reflect-metadata';
import type { Annotations, DtoClass, JsonSchema, StandardSchema } from './tool-shapes.js';
import { DESCRIBE_KEY, TOOL_METHOD_KEY, TOOL_METHODS_KEY, TOOLSET_KEY, TOOLSET_OPTIONS_KEY } from './metadata-keys.js';

/**
 * The only module that reads and writes `Reflect` metadata. Decorators record facts here; the
 * toolset reader turns them into frozen tool values once, at registration.
 */

/** What `@Tool(...)` takes. */
export interface ToolDecoratorOptions {
  /** What the model reads to decide when to call it. */
  readonly description: string;
  /** Defaults to the method name in snake_case. Stable: saved runs and policies refer to it. */
  readonly name?: string;
  readonly title?: string;
  /** The argument DTO when the build emits no `design:paramtypes`; or a Zod object (any Standard Schema) or a JSON Schema. */
  readonly input?: DtoClass | StandardSchema | JsonSchema;
}

/** Everything the decorators of one method recorded; each decorator merges into it. */
export interface ToolMethodRecord {
  readonly tool?: ToolDecoratorOptions;
  readonly annotations: Annotations;
}

type Prototype = object;

export function setToolsetName(target: Function, name: string): void {
  Reflect.defineMetadata(TOOLSET_KEY, name, target);
}

export function getToolsetName(target: Function): string | undefined {
  // Own metadata only: a subclass of a toolset is not a toolset until it says so.
  return Reflect.getOwnMetadata(TOOLSET_KEY, target) as string | undefined;
}

/** What `@Toolset(name, options)` takes besides the name. */
export interface ToolsetDecoratorOptions {
  /**
   * Let tsyringe build this toolset's constructor dependencies that nobody registered, each a new one of its
   * own (not the app's). Off: such a dependency is refused at start-up, as it is usually a silent duplicate.
   */
  readonly buildDependencies?: boolean;
}

export function setToolsetOptions(target: Function, options: ToolsetDecoratorOptions): void {
  Reflect.defineMetadata(TOOLSET_OPTIONS_KEY, Object.freeze({ ...options }), target);
}

export function getToolsetOptions(target: Function): ToolsetDecoratorOptions {
  return (Reflect.getOwnMetadata(TOOLSET_OPTIONS_KEY, target) as ToolsetDecoratorOptions | undefined) ?? {};
}

/** A class's declared constructor parameter types, or `undefined` when the build emitted none. */
export function getConstructorTypes(target: Function): readonly unknown[] | undefined {
  return Reflect.getMetadata('design:paramtypes', target) as readonly unknown[] | undefined;
}

/** The tokens tsyringe's `@inject(token)` recorded by parameter index (tsyringe's own key, read here only). */
export function getInjectionTokens(target: Function): Readonly<Record<number, unknown>> {
  return (Reflect.getOwnMetadata('injectionTokens', target) as Record<number, unknown> | undefined) ?? {};
}

/** Merges facts into a method's record, immutably, so decorator order never matters. */
export function mergeToolMethod(
  prototype: Prototype,
  method: string,
  patch: { readonly tool?: ToolDecoratorOptions; readonly annotations?: Annotations },
): void {
  const current = getToolMethod(prototype, method) ?? { annotations: {} };
  const tool = patch.tool ?? current.tool;
  const annotations = Object.freeze({ ...current.annotations, ...patch.annotations });
  const next: ToolMethodRecord = Object.freeze(
    tool === undefined ? { annotations } : { tool: Object.freeze({ ...tool }), annotations },
  );
  Reflect.defineMetadata(TOOL_METHOD_KEY, next, prototype, method);
  const methods = (Reflect.getMetadata(TOOL_METHODS_KEY, prototype) as readonly string[] | undefined) ?? [];
  if (!methods.includes(method)) {
    Reflect.defineMetadata(TOOL_METHODS_KEY, Object.freeze([...methods, method]), prototype);
  }
}

export function getToolMethod(prototype: Prototype, method: string): ToolMethodRecord | undefined {
  return Reflect.getMetadata(TOOL_METHOD_KEY, prototype, method) as ToolMethodRecord | undefined;
}

/** Methods with any Wardrik decorator, own and inherited, in declaration order. */
export function getToolMethods(prototype: Prototype): readonly string[] {
  return (Reflect.getMetadata(TOOL_METHODS_KEY, prototype) as readonly string[] | undefined) ?? [];
}

/**
 * The declared parameter types of a method, or `undefined` when the build emitted none (esbuild,
 * tsx, swc without metadata).
 */
export function getParameterTypes(prototype: Prototype, method: string): readonly unknown[] | undefined {
  return Reflect.getMetadata('design:paramtypes', prototype, method) as readonly unknown[] | undefined;
}

export function setDescription(prototype: Prototype, property: string, text: string): void {
  Reflect.defineMetadata(DESCRIBE_KEY, text, prototype, property);
}

export function getDescription(prototype: Prototype, property: string): string | undefined {
  return Reflect.getMetadata(DESCRIBE_KEY, prototype, property) as string | undefined;
}
