import { ConfigurationError } from '../errors.js';
import { getParameterTypes, getToolMethod, getToolMethods, getToolsetName } from './metadata.js';
import { snakeCase } from './names.js';
import { NoArguments } from './no-arguments.js';
import { defineTool, type DtoClass, type JsonSchema, type ToolDefinition } from './tool.js';

/** The `@Toolset` name of a class; a `ConfigurationError` saying how to fix it when there is none. */
export function toolsetNameOf(target: Function): string {
  const name = getToolsetName(target);
  if (name === undefined) {
    throw new ConfigurationError(
      `Class "${target.name}" was given as a toolset but has no @Toolset decorator. Add @Toolset('${snakeCase(target.name).replace(/_tools?$/, '') || 'name'}') to it.`,
    );
  }
  return name;
}

/**
 * The tool values of a toolset class, bound to `instance`. Reads the decorators once and checks them;
 * a mistake a developer must fix (no argument type, no description, a bad time-out) throws here, at
 * start-up, naming the class and the method. Without an instance the tools can be described (names,
 * schemas, annotations) but running one throws: see `describeToolset`.
 */
export function readToolset(target: Function, instance: object | undefined): ToolDefinition[] {
  const prototype = target.prototype as object;
  return getToolMethods(prototype).map((method) => {
    const where = `Tool "${method}" on class "${target.name}"`;
    const record = getToolMethod(prototype, method)!;
    const fn = (prototype as Record<string, unknown>)[method];
    if (typeof fn !== 'function') throw new ConfigurationError(`${where}: the decorated member is not a method.`);
    if (record.tool === undefined) {
      throw new ConfigurationError(
        `${where} has tool decorators but no @Tool({ description }). Add @Tool, or remove the others.`,
      );
    }
    const input = record.tool.input ?? argumentType(where, prototype, method, fn);
    try {
      return defineTool({
        name: record.tool.name ?? snakeCase(method),
        description: record.tool.description,
        ...(record.tool.title === undefined ? {} : { title: record.tool.title }),
        ...(input === undefined ? {} : { input }),
        annotations: record.annotations,
        run: (args, ctx) => {
          if (instance === undefined) {
            throw new ConfigurationError(
              `${where}: the toolset was only described, not built, so it cannot run. Give the class to Wardrik.create({ toolsets }).`,
            );
          }
          return (fn as (a: unknown, c: unknown) => unknown).call(instance, args, ctx);
        },
      });
    } catch (error) {
      if (error instanceof ConfigurationError)
        throw new ConfigurationError(error.message.replace(/^(Tool "[^"]*"|A tool)/, where), { cause: error });
      throw error;
    }
  });
}

/**
 * A toolset class's name and tools as its decorators declare them, without building it: no container,
 * no constructor dependencies. For tooling that lists tools (`wardrik tools`); the tools cannot run.
 * Throws the same `ConfigurationError` registration would.
 */
export function describeToolset(target: Function): { readonly name: string; readonly tools: ToolDefinition[] } {
  return { name: toolsetNameOf(target), tools: readToolset(target, undefined) };
}

const NOT_A_DTO = new Set<unknown>([Object, String, Number, Boolean, Array, Symbol, BigInt, Function, Promise, Date]);

/** The DTO from the first parameter's declared type; `undefined` for a method that takes no arguments. */
function argumentType(
  where: string,
  prototype: object,
  method: string,
  fn: Function,
): DtoClass | JsonSchema | undefined {
  const types = getParameterTypes(prototype, method);
  const fix = `Pass @Tool({ input: ${pascal(method)}Args }) with a class-validator DTO, or compile with emitDecoratorMetadata (tsc, or swc with jsc.transform.decoratorMetadata; esbuild and tsx emit none).`;
  if (types === undefined) {
    if (fn.length === 0) return undefined;
    throw new ConfigurationError(
      `${where}: cannot tell the argument type, because the build emitted no decorator metadata. ${fix}`,
    );
  }
  if (types.length === 0) return undefined;
  const first = types[0];
  if (first === NoArguments) return undefined;
  if (typeof first !== 'function' || NOT_A_DTO.has(first)) {
    const seen = typeof first === 'function' ? first.name : String(first);
    throw new ConfigurationError(
      `${where}: cannot tell the argument type: its first parameter is declared as ${seen} (an interface, a union or a primitive), not a DTO class. ${fix}`,
    );
  }
  return first as DtoClass;
}

function pascal(method: string): string {
  return method.charAt(0).toUpperCase() + method.slice(1);
}
