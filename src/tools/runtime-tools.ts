import { ConfigurationError } from '../errors.js';
import type { ToolCatalog } from './catalog.js';
import { TOOLSET_NAME, TOOLSET_NAME_RULE } from './names.js';
import { buildTool, TOOL_OPTION_KEYS, type ToolOptions } from './tool.js';

/**
 * `wardrik.tool(definition)`: a functional tool registered while Wardrik runs, as the SDK page writes
 * them. It joins a toolset of functional tools (`workers` unless the definition names one), so the
 * model sees `workers__find_order` and policies say `workers/find_order`; agents' next steps and served
 * MCP clients (told by `tools/list_changed`) see it from then on.
 */

/** The toolset `wardrik.tool` adds to when the definition names none. Stable: policies and saved runs name it. */
export const DEFAULT_RUNTIME_TOOLSET = 'workers';

/** What `wardrik.tool` takes: `defineTool`'s keys and the toolset. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- `any` lets a tool's arguments be typed by its run function
export interface RuntimeToolOptions<Args = any> extends ToolOptions<Args> {
  /** The toolset it joins: `workers` unless given. A toolset of classes or of an MCP server cannot be joined. */
  readonly toolset?: string;
}

/** What registering needs from Wardrik. */
export interface RuntimeToolParts {
  readonly catalog: ToolCatalog;
  /** Toolset names and who holds them (`class OrderTools`, `tools.workers`, an MCP hub), shared with start-up and MCP servers. */
  readonly toolsets: Map<string, string>;
  readonly events: {
    emit(
      event:
        | { type: 'tool.skipped'; toolset: string; tool: string; reason: string }
        | { type: 'tools.changed'; toolset: string; count: number },
    ): void;
  };
}

const KEYS: readonly string[] = Object.freeze([...TOOL_OPTION_KEYS, 'toolset']);

/**
 * Adds a tool to its toolset in the catalog. A definition Wardrik cannot use (a missing key, an unknown
 * key, a toolset that is not free) throws a `ConfigurationError`; a tool the catalog refuses (an invalid
 * name, a name the toolset has, an input that is not an object schema) is skipped with `tool.skipped`.
 */
export function registerTool(parts: RuntimeToolParts, definition: RuntimeToolOptions): void {
  if (definition === null || typeof definition !== 'object') {
    throw new ConfigurationError(
      'wardrik.tool takes a definition object: wardrik.tool({ name, description, input, run }).',
    );
  }
  const { toolset = DEFAULT_RUNTIME_TOOLSET, ...options } = definition;
  const tool = buildTool(options, KEYS, 'wardrik.tool');
  if (typeof toolset !== 'string' || !TOOLSET_NAME.test(toolset)) {
    throw new ConfigurationError(
      `Tool "${tool.name}": toolset ${JSON.stringify(toolset)} is not ${TOOLSET_NAME_RULE}. Leave it out for "${DEFAULT_RUNTIME_TOOLSET}", or rename it.`,
    );
  }
  // The owner name of `Wardrik.create({ tools })`: a toolset given there can be added to here.
  const owner = `tools.${toolset}`;
  const holder = parts.toolsets.get(toolset);
  if (holder !== undefined && holder !== owner) {
    throw new ConfigurationError(
      `Tool "${tool.name}": toolset "${toolset}" is ${holder}'s, and wardrik.tool adds only to toolsets of functional tools. Pass another toolset, or leave it out for "${DEFAULT_RUNTIME_TOOLSET}".`,
    );
  }
  parts.toolsets.set(toolset, owner);
  const before = parts.catalog
    .entries()
    .filter((entry) => entry.toolset === toolset)
    .map((entry) => entry.tool);
  const skipped = parts.catalog.set(toolset, [...before, tool]);
  for (const skip of skipped)
    parts.events.emit({ type: 'tool.skipped', toolset: skip.toolset, tool: skip.tool, reason: skip.reason });
  const count = before.length + 1 - skipped.length;
  if (count !== before.length) parts.events.emit({ type: 'tools.changed', toolset, count });
}
