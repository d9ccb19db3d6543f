/**
 * Who holds which toolset name. MCP servers are toolsets (`github/*`), so a server's name must not be a
 * registered toolset's or another hub's server's. Wardrik shares one between its toolsets and hubs.
 */
export interface ToolsetClaims {
  /** Claims `name` for `owner`; returns the current owner instead when someone else has it. */
  claim(name: string, owner: string): string | undefined;
  release(name: string, owner: string): void;
}

/** A `ToolsetClaims` over a map of names to owners. */
export function toolsetClaims(taken: Map<string, string> = new Map()): ToolsetClaims {
  return {
    claim(name, owner) {
      const current = taken.get(name);
      if (current !== undefined && current !== owner) return current;
      taken.set(name, owner);
      return undefined;
    },
    release(name, owner) {
      if (taken.get(name) === owner) taken.delete(name);
    },
  };
}
