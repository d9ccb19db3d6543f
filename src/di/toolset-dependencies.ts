import type { DependencyContainer } from 'tsyringe';
import { ConfigurationError } from '../errors.js';
import { getConstructorTypes, getInjectionTokens, getToolsetOptions } from '../tools/metadata.js';

/** Types tsyringe cannot build: an interface or `import type` reads as `Object`, a primitive as its wrapper. */
const NOT_BUILDABLE = new Set<unknown>([Object, String, Number, Boolean, Array, Symbol, BigInt, Function, Promise]);

/**
 * Checks, before tsyringe builds a toolset, that it can tell each constructor parameter and that each is
 * registered. tsyringe builds an unregistered class by itself without a word: the toolset then holds a
 * second service beside the app's, with its own state and no configuration (issue 32). That is refused
 * here unless the class opted in with `@Toolset(name, { buildDependencies: true })`.
 */
export function checkToolsetDependencies(container: DependencyContainer, toolsetClass: Function, name: string): void {
  const where = `Toolset "${name}" (class ${toolsetClass.name})`;
  const types = getConstructorTypes(toolsetClass);
  const tokens = getInjectionTokens(toolsetClass);
  const count = Math.max(types?.length ?? 0, toolsetClass.length);
  const { buildDependencies = false } = getToolsetOptions(toolsetClass);
  for (let index = 0; index < count; index++) {
    const given = tokens[index];
    const token = isDescriptor(given) ? given.token : given !== undefined ? given : types?.[index];
    if (token === undefined) {
      throw new ConfigurationError(
        `${where}: constructor parameter ${index + 1} has no type to inject, because the build emitted no ` +
          'decorator metadata (tsx/esbuild?). Compile with tsc and emitDecoratorMetadata (or swc with ' +
          'jsc.transform.decoratorMetadata: true), or name each parameter with @inject(Token), or build the ' +
          'toolset yourself and pass the instance: Wardrik.create({ toolsets: [new ' +
          `${toolsetClass.name}(...)] }).`,
      );
    }
    if (container.isRegistered(token as never, true)) continue;
    if (typeof token !== 'function' || NOT_BUILDABLE.has(token)) continue; // tsyringe refuses these itself, by name
    if (buildDependencies) continue;
    const dependency = token.name || 'an anonymous class';
    throw new ConfigurationError(
      `${where}: constructor parameter ${index + 1} (${dependency}) is registered nowhere in the container given ` +
        `to Wardrik.create, so tsyringe would silently build a ${dependency} of its own beside your app's, with ` +
        `its own state and no configuration. Register yours: container.register(${dependency}, { useValue: ` +
        `yours }) or container.registerSingleton(${dependency}). If this toolset should have one of its own, ` +
        `say so with @Toolset('${name}', { buildDependencies: true }).`,
    );
  }
}

/** What `@injectAll` and `@injectWithTransform` record instead of a bare token. */
function isDescriptor(value: unknown): value is { readonly token: unknown } {
  return typeof value === 'object' && value !== null && 'token' in value;
}
