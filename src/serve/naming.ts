import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { ConfigurationError } from '../errors.js';
import type { CatalogEntry, ToolCatalog } from '../tools/catalog.js';
import { closestNames } from '../tools/names.js';

/** A served tool: the name clients call it by, and the catalog entry it runs. */
export interface ServedTool {
  readonly name: string;
  readonly entry: CatalogEntry;
}

/**
 * The tools a server offers, under the names its clients see: `orders__find_order` (qualified, what
 * Wardrik's own models see) or `find_order` (bare). Names are stable: clients' saved prompts use them.
 * Rebuilt lazily after the catalog changes (an MCP server connects, drops, is added or removed).
 */
export class ServedTools {
  private current:
    { readonly byName: ReadonlyMap<string, ServedTool>; readonly listing: readonly McpTool[] } | undefined;
  /** Bare names two tools claimed after start-up: the first keeps it; said once per name. */
  private readonly clashes = new Set<string>();

  constructor(
    private readonly catalog: ToolCatalog,
    private readonly patterns: readonly string[],
    private readonly names: 'qualified' | 'bare',
    private readonly warn: (message: string) => void,
  ) {
    // At start-up a clash of bare names is refused: a client would not know which tool it calls.
    const clash = this.build(true);
    if (clash !== undefined) throw new ConfigurationError(clash);
  }

  /** The catalog changed: the next read rebuilds. Returns whether the listing a client sees changed. */
  refresh(): boolean {
    const before = this.current?.listing;
    this.current = undefined;
    const after = this.read().listing;
    return before === undefined || JSON.stringify(before) !== JSON.stringify(after);
  }

  get(name: string): ServedTool | undefined {
    return this.read().byName.get(name);
  }

  /** The `tools/list` answer's tools. */
  listing(): readonly McpTool[] {
    return this.read().listing;
  }

  /** Up to three served names closest to `name`, for an unknown tool's error. */
  closest(name: string): string[] {
    return closestNames(name, this.read().byName.keys());
  }

  private read(): NonNullable<ServedTools['current']> {
    if (this.current === undefined) this.build(false);
    return this.current!;
  }

  private build(strict: boolean): string | undefined {
    const byName = new Map<string, ServedTool>();
    for (const entry of this.catalog.select(this.patterns)) {
      const name = this.names === 'bare' ? entry.ref.slice(entry.toolset.length + 1) : entry.name;
      const other = byName.get(name);
      if (other !== undefined) {
        const message = `Two served tools would both be called "${name}" with names: 'bare' (${other.entry.ref} and ${entry.ref}). Serve them with names: 'qualified', or narrow tools so only one matches.`;
        if (strict) return message;
        if (!this.clashes.has(name)) this.warn(`${message} Until then ${other.entry.ref} keeps the name.`);
        this.clashes.add(name);
        continue;
      }
      byName.set(name, { name, entry });
    }
    this.current = { byName, listing: Object.freeze([...byName.values()].map(listed)) };
    return undefined;
  }
}

/** A tool as `tools/list` gives it: Wardrik's annotations mapped back to MCP's four hints. */
function listed({ name, entry }: ServedTool): McpTool {
  const { tool } = entry;
  const a = tool.annotations;
  const hints: Record<string, unknown> = {};
  if (tool.title !== undefined) hints.title = tool.title;
  if (a.readOnly !== undefined) hints.readOnlyHint = a.readOnly;
  if (a.destructive !== undefined) hints.destructiveHint = a.destructive;
  if (a.idempotent !== undefined) hints.idempotentHint = a.idempotent;
  if (a.openWorld !== undefined) hints.openWorldHint = a.openWorld;
  return {
    name,
    ...(tool.title === undefined ? {} : { title: tool.title }),
    description: tool.description,
    inputSchema: tool.inputSchema as McpTool['inputSchema'],
    ...(Object.keys(hints).length === 0 ? {} : { annotations: hints }),
    // Any call may be a task (one that waits for a person completes when they answer).
    execution: { taskSupport: 'optional' },
  };
}
