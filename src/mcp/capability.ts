import type { CatalogEntry } from '../tools/catalog.js';

/** Who asks a capability provider for tools. */
export interface CapabilityContext {
  /** The agent the tools are for, when there is one. */
  readonly agent?: string;
}

/**
 * Something that offers Wardrik tools to agents, registered under `Tokens.Capabilities` (one
 * registration per provider; resolve them all with `container.resolveAll`). Each MCP hub is one. Its
 * tools are also in the catalog, so an agent's `tools` patterns (`github/*`) pick from every provider;
 * `tools(ctx, options)` gives a provider's own tools directly. It is read at the moment of the call:
 * what it returns can change as servers connect, drop and change their tools.
 */
export interface CapabilityProvider<Options = unknown> {
  /** The provider's name, such as the hub's (`mcp`). */
  readonly name: string;
  tools(ctx: CapabilityContext, options: Options): CatalogEntry[];
}
