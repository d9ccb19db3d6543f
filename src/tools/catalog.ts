import { argumentChecker } from './arguments.js';
import { glob } from './glob.js';
import { modelName, TOOL_NAME, toolRef } from './names.js';
import type { ToolDefinition } from './tool.js';

/** A tool under its toolset: `orders__find_order` for the model, `orders/find_order` for policies. */
export interface CatalogEntry {
  readonly toolset: string;
  /** The name the model sees: `toolset__tool`. */
  readonly name: string;
  /** The name policies and agents use: `toolset/tool`. */
  readonly ref: string;
  readonly tool: ToolDefinition;
}

/** A tool left out at registration, and why; reported as a `tool.skipped` event. */
export interface SkippedTool {
  readonly toolset: string;
  readonly tool: string;
  readonly reason: string;
}

/** Model APIs (Anthropic, OpenAI) refuse tool names longer than this. */
const MODEL_NAME_LIMIT = 64;

/**
 * Every tool this Wardrik offers, by toolset. Registration checks each tool once: a bad name, a
 * duplicate, or an input that is not an object schema is skipped with a reason, never a crash.
 */
export class ToolCatalog {
  private readonly toolsets = new Map<string, readonly CatalogEntry[]>();
  private readonly byName = new Map<string, CatalogEntry>();
  private readonly listeners = new Set<() => void>();

  /** Calls `listener` after each change of the tools (a toolset set or deleted); returns the unsubscribe. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Sets a toolset's tools, replacing any it had; returns those skipped. */
  set(toolset: string, tools: readonly ToolDefinition[]): SkippedTool[] {
    this.delete(toolset);
    const skipped: SkippedTool[] = [];
    const entries: CatalogEntry[] = [];
    const seen = new Set<string>();
    for (const tool of tools) {
      const reason = this.problem(toolset, tool, seen) ?? this.collision(toolset, tool);
      if (reason !== undefined) {
        skipped.push({ toolset, tool: String(tool.name), reason });
        continue;
      }
      seen.add(tool.name);
      const entry: CatalogEntry = Object.freeze({
        toolset,
        name: modelName(toolset, tool.name),
        ref: toolRef(toolset, tool.name),
        tool,
      });
      entries.push(entry);
      this.byName.set(entry.name, entry);
      this.byName.set(entry.ref, entry);
    }
    this.toolsets.set(toolset, Object.freeze(entries));
    this.changed();
    return skipped;
  }

  delete(toolset: string): void {
    for (const entry of this.toolsets.get(toolset) ?? []) {
      this.byName.delete(entry.name);
      this.byName.delete(entry.ref);
    }
    if (this.toolsets.delete(toolset)) this.changed();
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }

  /** The tool named `orders__find_order` or `orders/find_order`. */
  get(name: string): CatalogEntry | undefined {
    return this.byName.get(name);
  }

  entries(): CatalogEntry[] {
    return [...this.toolsets.values()].flat();
  }

  /** The tools whose ref matches any of the patterns, such as `orders/*`; all when none are given. */
  select(patterns?: readonly string[]): CatalogEntry[] {
    if (patterns === undefined) return this.entries();
    const matchers = patterns.map(glob);
    return this.entries().filter((entry) => matchers.some((matches) => matches(entry.ref)));
  }

  /**
   * Another toolset's tool the model would see under the same name. Toolset names make this impossible
   * (see `TOOLSET_NAME`); checked anyway, since a call must never run one of two tools at random.
   */
  private collision(toolset: string, tool: ToolDefinition): string | undefined {
    const other = this.byName.get(modelName(toolset, tool.name));
    if (other === undefined) return undefined;
    return `the name a model sees, "${other.name}", is already that of tool "${other.tool.name}" of toolset "${other.toolset}", so the model could not tell them apart; rename one of them`;
  }

  private problem(toolset: string, tool: ToolDefinition, seen: ReadonlySet<string>): string | undefined {
    if (typeof tool.name !== 'string' || !TOOL_NAME.test(tool.name)) {
      return `its name ${JSON.stringify(tool.name)} is not 1 to 55 letters, digits, "_" or "-"; rename it`;
    }
    if (seen.has(tool.name))
      return `toolset "${toolset}" already has a tool named "${tool.name}"; give one of them another name`;
    const full = modelName(toolset, tool.name);
    if (full.length > MODEL_NAME_LIMIT) {
      return `the name a model sees, "${full}", is longer than ${MODEL_NAME_LIMIT} characters, which model APIs refuse; shorten the toolset or tool name`;
    }
    try {
      argumentChecker(tool);
    } catch (error) {
      return (error as Error).message;
    }
    return undefined;
  }
}
