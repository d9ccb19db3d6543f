import type { Tool as McpTool } from '@modelcontextprotocol/server';
import { ConfigurationError } from '../errors.js';
import { reachesOutside } from '../policy/policy.js';
import type { CatalogEntry, ToolCatalog } from '../tools/catalog.js';
import { closestNames } from '../tools/names.js';
import type { ServeSettings } from './options.js';
import { SERVED_SEARCH_DEFINITION, SERVED_SEARCH_TOOL } from './served-search-tool.js';

/** A served tool: the name clients call it by, and the catalog entry it runs. */
export interface ServedTool {
  readonly name: string;
  readonly entry: CatalogEntry;
  /** Served but not listed: found with the search tool (`deferred`). */
  readonly deferred: boolean;
}

/**
 * The tools a server offers, under the names its clients see: `orders__find_order` (qualified, what
 * Wardrik's own models see) or `find_order` (bare). Names are stable: clients' saved prompts use them.
 * Rebuilt lazily after the catalog changes (an MCP server connects, drops, is added or removed).
 */
export class ServedTools {
  private current:
    | {
        readonly byName: ReadonlyMap<string, ServedTool>;
        readonly listing: readonly McpTool[];
        readonly deferred: readonly ServedTool[];
      }
    | undefined;
  /** Bare names two tools claimed after start-up: the first keeps it; said once per name. */
  private readonly clashes = new Set<string>();

  constructor(
    private readonly catalog: ToolCatalog,
    private readonly settings: Pick<ServeSettings, 'tools' | 'deferred' | 'names'>,
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

  /** The `tools/list` answer's tools, every caller's: the listed ones, and the search tool if any is deferred. */
  listing(): readonly McpTool[] {
    return this.read().listing;
  }

  /** The deferred tools: served, not listed, found with the search tool. */
  deferred(): readonly ServedTool[] {
    return this.read().deferred;
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
    const { tools, deferred, names } = this.settings;
    const add = (entry: CatalogEntry, isDeferred: boolean): string | undefined => {
      const name = names === 'bare' ? entry.ref.slice(entry.toolset.length + 1) : entry.name;
      const other = byName.get(name);
      if (other?.entry === entry) return undefined; // matched by a deferred pattern and a listed one: deferred
      if (other !== undefined || name === SERVED_SEARCH_TOOL) {
        const message = `Two served tools would both be called "${name}" with names: 'bare' (${other?.entry.ref ?? 'the search tool'} and ${entry.ref}). Serve them with names: 'qualified', or narrow tools so only one matches.`;
        if (strict) return message;
        if (!this.clashes.has(name))
          this.warn(`${message} Until then ${other?.entry.ref ?? 'the search tool'} keeps the name.`);
        this.clashes.add(name);
        return undefined;
      }
      byName.set(name, { name, entry, deferred: isDeferred });
      return undefined;
    };
    for (const entry of deferred.length === 0 ? [] : this.catalog.select(deferred)) {
      const clash = add(entry, true);
      if (clash !== undefined) return clash;
    }
    for (const entry of this.catalog.select(tools)) {
      const clash = add(entry, false);
      if (clash !== undefined) return clash;
    }
    const all = [...byName.values()];
    const hidden = all.filter((tool) => tool.deferred);
    const listing = all.filter((tool) => !tool.deferred).map(listedTool);
    if (hidden.length > 0) listing.push(SERVED_SEARCH_DEFINITION);
    this.current = { byName, listing: Object.freeze(listing), deferred: Object.freeze(hidden) };
    return undefined;
  }
}

/**
 * A tool as `tools/list` gives it: Wardrik's annotations mapped back to MCP's four hints. A tool that reaches
 * outside here (`openWorld`, or answers labelled `outside`) says `openWorldHint: true`, so a hub that trusts
 * this server still gates what flows into its arguments.
 */
export function listedTool({ name, entry }: ServedTool): McpTool {
  const { tool } = entry;
  const a = tool.annotations;
  const hints: Record<string, unknown> = {};
  if (tool.title !== undefined) hints.title = tool.title;
  if (a.readOnly !== undefined) hints.readOnlyHint = a.readOnly;
  if (a.destructive !== undefined) hints.destructiveHint = a.destructive;
  if (a.idempotent !== undefined) hints.idempotentHint = a.idempotent;
  if (a.openWorld !== undefined) hints.openWorldHint = a.openWorld;
  // Guard (served-reach-outside): a tool that reads from outside can be steered to send there, hint or none.
  if (reachesOutside(a)) hints.openWorldHint = true;
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
