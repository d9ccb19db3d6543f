import { ConfigurationError, NotFoundError } from '../errors.js';
import type { McpHub } from '../mcp/hub.js';
import type { McpHubOptions } from '../mcp/options.js';
import { requireCapability } from '../store/capabilities.js';
import { openStore } from '../store/open-store.js';
import type { Services } from './services.js';

/** What a Wardrik's MCP hubs are made from: its services, and the toolset names already claimed. */
export interface HubParts {
  readonly services: Services;
  /** Toolset names and who registered them; each hub's servers claim theirs here too. */
  readonly toolsetNames: Map<string, string>;
}

/**
 * Builds one hub for each of `mcp`'s options (a hub's own `store` URL is opened here and closed with it),
 * adding each to `hubs` as it is made, so that a failure part way leaves the ones made for `close()` to
 * release. Refuses two hubs of one name. Starts none of them.
 */
export async function buildHubs(
  mcp: McpHubOptions | readonly McpHubOptions[],
  parts: HubParts,
  hubs: McpHub[],
): Promise<void> {
  const list: readonly McpHubOptions[] = Array.isArray(mcp) ? mcp : [mcp as McpHubOptions];
  // Imported here, the first time a Wardrik has hubs: the hub and the MCP SDK's clients (stdio, HTTP,
  // OAuth) are some 60 files that a Wardrik without MCP servers never needs (startup.bench.ts).
  const { McpHub, toolsetClaims } = await import('../mcp/hub.js');
  const claims = toolsetClaims(parts.toolsetNames);
  const { catalog, events, clock, timers, credentials } = parts.services;
  const seen = new Set<string>();
  for (const options of list) {
    const name = options?.name ?? 'mcp';
    if (seen.has(name))
      throw new ConfigurationError(`Two MCP hubs are named "${name}"; give each hub in mcp: [...] its own name.`);
    seen.add(name);
    const given = options?.store;
    const opened = typeof given === 'string' ? await openStore(given) : undefined;
    const shared = typeof given === 'object' && given !== null ? given : parts.services.store;
    const keeps = `MCP hub "${name}" (it keeps runtime servers, pinned tool definitions and sign-ins in its store)`;
    const storeOnly = `pass store: false in hub "${name}"'s options to keep them on this node only`;
    const store =
      given === false ? undefined : requireCapability(opened ?? shared, 'McpServerRecords', keeps, storeOnly);
    try {
      const owned = opened === undefined ? {} : { ownedStore: opened };
      hubs.push(new McpHub(options, { catalog, events, clock, timers, credentials, claims, store, ...owned }));
    } catch (error) {
      // A hub that is not made does not close the store it was to own.
      await opened?.close();
      throw error;
    }
  }
}

/** The hub named `name`; without a name, the one named `mcp` or else the only one. */
export function findHub(hubs: readonly McpHub[], name?: string): McpHub {
  const hub =
    name === undefined
      ? (hubs.find((h) => h.name === 'mcp') ?? (hubs.length === 1 ? hubs[0] : undefined))
      : hubs.find((h) => h.name === name);
  if (hub === undefined) {
    const have = hubs.map((h) => `"${h.name}"`).join(', ');
    const named = name === undefined ? ' named "mcp"' : ` named "${name}"`;
    const why = have === '' ? ': Wardrik.create was given no mcp option' : `; the hubs are ${have}`;
    throw new ConfigurationError(`No MCP hub${named}${why}.`);
  }
  return hub;
}

/** Completes an MCP sign-in on whichever hub waits for it (see `McpHub.completeSignIn`). */
export async function completeSignIn(hubs: readonly McpHub[], callback: URL, by: string): Promise<string> {
  for (const hub of hubs) {
    try {
      return await hub.completeSignIn(callback, { by });
    } catch (error) {
      if (!(error instanceof NotFoundError) || hub === hubs[hubs.length - 1]) throw error;
    }
  }
  throw new NotFoundError('No MCP sign-in waits for this callback: this Wardrik has no MCP hub.');
}
