import { existsSync } from 'node:fs';
import { extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ToolsetClass } from '../di/wardrik.js';
import { toolInfo, type ToolInfo } from '../tools/tool-info.js';
import { ConfigurationError } from '../errors.js';
import { ToolCatalog, type SkippedTool } from '../tools/catalog.js';
import { getToolsetName } from '../tools/metadata.js';
import { TOOLSET_NAME, TOOLSET_NAME_RULE } from '../tools/names.js';
import type { ToolDefinition } from '../tools/tool.js';
import { describeToolset } from '../tools/toolset.js';
import type { CommandContext } from './context.js';
import { CliError, ExitCode } from './errors.js';
import { indent } from './format.js';

/** One toolset a module exports, as described (never built: no container, no dependencies). */
interface DescribedToolset {
  readonly name: string;
  /** `class OrderTools`, or `defineTool values (orderStatus, …)`. */
  readonly source: string;
  readonly tools: ToolInfo[];
  /** Tools registration would skip, and why (the `tool.skipped` events Wardrik.create would emit). */
  readonly skipped: SkippedTool[];
}

/**
 * `wardrik tools MODULE [--toolset NAME]`: the toolsets a module exports — `@Toolset` classes and
 * `defineTool` values (alone or in arrays) — with each tool's model-facing name, description, JSON
 * Schema and annotations. Tool values have no toolset of their own (Wardrik.create's `tools` option
 * names it), so they are shown under `--toolset` (`tools` unless given).
 */
export async function tools(ctx: CommandContext, module: string, options: { readonly toolset: string }): Promise<void> {
  const loaded = await loadToolsets(module, options.toolset);
  const described: DescribedToolset[] = [];
  for (const { exportName, toolsetClass } of loaded.classes) {
    let toolset: ReturnType<typeof describeToolset>;
    try {
      toolset = describeToolset(toolsetClass);
    } catch (error) {
      if (error instanceof ConfigurationError)
        throw new CliError(
          ExitCode.usage,
          `Toolset class ${toolsetClass.name} exported as "${exportName}" by ${loaded.path} cannot be registered: ${error.message}`,
          { cause: error },
        );
      throw error;
    }
    described.push(describe(toolset.name, `class ${toolsetClass.name}`, toolset.tools));
  }
  if (loaded.values.length > 0) {
    const names = [...new Set(loaded.values.map((value) => value.name))].join(', ');
    described.push(
      describe(
        options.toolset,
        `defineTool values (${names})`,
        loaded.values.map((value) => value.tool),
      ),
    );
  }
  ctx.print({ module: loaded.path, toolsets: described }, () => described.map(human).join('\n\n'));
}

/** What a module exports that Wardrik can serve: `@Toolset` classes, and `defineTool` values (alone or in arrays). */
export interface ModuleToolsets {
  readonly path: string;
  readonly classes: readonly { readonly exportName: string; readonly toolsetClass: ToolsetClass }[];
  readonly values: readonly { readonly name: string; readonly tool: ToolDefinition }[];
  /** The module's `wardrikOptions` export, which `wardrik serve` reads; `undefined` when it has none. */
  readonly wardrikOptions: unknown;
}

/**
 * Imports a compiled module and finds its toolsets. Throws a CliError when the module is missing, fails
 * to import, or exports none. `toolset` is only checked here: it names the values' toolset.
 */
export async function loadToolsets(module: string, toolset: string): Promise<ModuleToolsets> {
  if (!TOOLSET_NAME.test(toolset)) {
    throw new CliError(
      ExitCode.usage,
      `--toolset ${JSON.stringify(toolset)} is not a toolset name: ${TOOLSET_NAME_RULE}.`,
    );
  }
  const path = resolve(module);
  if (!existsSync(path)) {
    throw new CliError(
      ExitCode.notFound,
      `No module at ${path}. Pass the path of a JavaScript module that exports toolsets, such as dist/examples/orders/order-tools.js (build first: npm run build).`,
    );
  }
  let exports: Record<string, unknown>;
  try {
    exports = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  } catch (error) {
    const hint = ['.ts', '.mts', '.cts'].includes(extname(path))
      ? 'It is TypeScript: Node only strips its types, which runs no decorators and emits no metadata; build it with tsc (which keeps the decorator metadata) and pass the compiled .js file.'
      : 'Fix the module, or pass one that only defines toolsets (importing it must not start your app).';
    throw new CliError(ExitCode.usage, `Module ${path} could not be imported: ${(error as Error).message}. ${hint}`, {
      cause: error,
    });
  }
  const classes: { exportName: string; toolsetClass: ToolsetClass }[] = [];
  const values: { name: string; tool: ToolDefinition }[] = [];
  for (const [name, value] of Object.entries(exports)) {
    if (typeof value === 'function' && getToolsetName(value) !== undefined) {
      classes.push({ exportName: name, toolsetClass: value as ToolsetClass });
    } else if (isToolValue(value)) {
      values.push({ name, tool: value });
    } else if (Array.isArray(value) && value.length > 0 && value.every(isToolValue)) {
      for (const tool of value) values.push({ name, tool });
    }
  }
  if (classes.length === 0 && values.length === 0) {
    throw new CliError(
      ExitCode.notFound,
      `Module ${path} exports no toolsets: no @Toolset class and no defineTool value among its exports (${Object.keys(exports).join(', ') || 'none'}). Export them from the module you pass.`,
    );
  }
  return { path, classes, values, wardrikOptions: exports.wardrikOptions };
}

function describe(name: string, source: string, definitions: readonly ToolDefinition[]): DescribedToolset {
  // The catalog registration uses: the same names, checks and reasons to skip.
  const catalog = new ToolCatalog();
  const skipped = catalog.set(name, definitions);
  return { name, source, tools: catalog.entries().map(toolInfo), skipped };
}

function isToolValue(value: unknown): value is ToolDefinition {
  if (value === null || typeof value !== 'object') return false;
  const tool = value as Partial<ToolDefinition>;
  return (
    typeof tool.name === 'string' &&
    typeof tool.description === 'string' &&
    typeof tool.run === 'function' &&
    typeof tool.inputSchema === 'object' &&
    typeof tool.annotations === 'object'
  );
}

function human(toolset: DescribedToolset): string {
  const out = [
    `${toolset.name}  (${toolset.source}; ${toolset.tools.length} tool${toolset.tools.length === 1 ? '' : 's'})`,
  ];
  for (const tool of toolset.tools) {
    const ref = `${toolset.name}/${tool.name.slice(toolset.name.length + 2)}`;
    out.push(
      '',
      `  ${tool.name}   (policies and agents: ${ref})${tool.title === undefined ? '' : `  "${tool.title}"`}`,
    );
    out.push(`    ${tool.description}`);
    out.push(`    annotations: ${annotationsText(tool.annotations)}`);
    out.push(`    input schema:\n${indent(JSON.stringify(tool.inputSchema, null, 2), 6)}`);
  }
  for (const skip of toolset.skipped) out.push('', `  skipped ${skip.tool}: ${skip.reason}`);
  return out.join('\n');
}

function annotationsText(annotations: ToolInfo['annotations']): string {
  const parts = Object.entries(annotations).map(([key, value]) =>
    value === true ? key : `${key}=${JSON.stringify(value)}`,
  );
  return parts.length === 0 ? 'none (not read-only: calls ask a person unless a policy allows them)' : parts.join(', ');
}
