import type { DependencyContainer } from 'tsyringe';
import { ConfigurationError } from '../errors.js';
import type { EventBus } from '../telemetry/event-bus.js';
import type { ToolCatalog } from '../tools/catalog.js';
import { TOOLSET_NAME, TOOLSET_NAME_RULE } from '../tools/names.js';
import type { ToolDefinition } from '../tools/tool.js';
import { readToolset, toolsetNameOf } from '../tools/toolset.js';
import { checkToolsetDependencies } from './toolset-dependencies.js';

/** A class whose methods are tools: decorated with `@Toolset` and built by the container. */
export type ToolsetClass = new (...args: never[]) => object;

/**
 * What `toolsets` takes: a `@Toolset` class, built by the container (or the instance registered for it),
 * or an instance of one, built by the app (a NestJS provider, say) and called as it is.
 */
export type ToolsetEntry = ToolsetClass | object;

/** Where toolsets go: the container that builds their classes, the catalog, and who claimed each name. */
export interface ToolsetParts {
  readonly container: DependencyContainer;
  readonly catalog: ToolCatalog;
  readonly events: EventBus;
  /** Toolset names and who registered them (`class OrderTools`, `tools.workers`). */
  readonly toolsetNames: Map<string, string>;
}

/**
 * Puts the `toolsets` (classes, each built by the container once, or instances) and the `tools` values in
 * the catalog, each under a toolset name claimed once; a tool the catalog skips is reported as `tool.skipped`.
 */
export function registerToolsets(
  parts: ToolsetParts,
  toolsets: readonly ToolsetEntry[] = [],
  tools: Readonly<Record<string, readonly ToolDefinition[]>> = {},
): void {
  const add = (toolset: string, definitions: readonly ToolDefinition[]): void => {
    for (const skipped of parts.catalog.set(toolset, definitions)) {
      parts.events.emit({ type: 'tool.skipped', toolset: skipped.toolset, tool: skipped.tool, reason: skipped.reason });
    }
  };
  for (const entry of toolsets) {
    if (typeof entry === 'object' && entry !== null) {
      // An instance the app built: its class names the toolset; nothing is built or registered here.
      const toolsetClass = entry.constructor as ToolsetClass;
      const name = toolsetNameOf(toolsetClass);
      claim(parts.toolsetNames, name, `class ${toolsetClass.name}`);
      add(name, readToolset(toolsetClass, entry));
      continue;
    }
    if (typeof entry !== 'function') {
      const got = entry === null ? 'null' : typeof entry;
      throw new ConfigurationError(`toolsets takes classes decorated with @Toolset, or their instances; got ${got}.`);
    }
    const name = toolsetNameOf(entry);
    claim(parts.toolsetNames, name, `class ${entry.name}`);
    add(name, readToolset(entry, build(parts.container, entry, name)));
  }
  for (const [name, definitions] of Object.entries(tools)) {
    claim(parts.toolsetNames, name, `tools.${name}`);
    if (!Array.isArray(definitions))
      throw new ConfigurationError(`tools.${name} must be an array of tool values from defineTool.`);
    add(name, definitions);
  }
}

function claim(names: Map<string, string>, name: string, source: string): void {
  if (!TOOLSET_NAME.test(name)) {
    throw new ConfigurationError(
      `Toolset name ${JSON.stringify(name)} (${source}) is not ${TOOLSET_NAME_RULE}. Rename it, such as "orders".`,
    );
  }
  const other = names.get(name);
  if (other !== undefined)
    throw new ConfigurationError(`Toolset "${name}" is given twice (${other} and ${source}); give one another name.`);
  names.set(name, source);
}

/** The instance registered for the class (the app's, used as it is), else one built here with its checked dependencies. */
function build(container: DependencyContainer, toolsetClass: ToolsetClass, name: string): object {
  if (!container.isRegistered(toolsetClass as never, true)) {
    checkToolsetDependencies(container, toolsetClass, name);
    container.registerSingleton(toolsetClass as never);
  }
  try {
    return container.resolve(toolsetClass as never) as object;
  } catch (error) {
    throw new ConfigurationError(
      `Toolset "${name}" (class ${toolsetClass.name}) could not be built: ${(error as Error).message}. ` +
        'Register its constructor dependencies in the container you pass to Wardrik.create, ' +
        'and import injected classes as values, not with "import type".',
      { cause: error },
    );
  }
}
