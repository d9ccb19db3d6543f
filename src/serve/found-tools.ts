import type { ServedTool, ServedTools } from './naming.js';

/** The most found tools a session lists besides the server's own. */
const MAX_FOUND = 100;

/**
 * The deferred tools one 2025-11-25 session's searches found: listed to that session from then on, the oldest
 * dropped first past `MAX_FOUND`, so a session that searches all day keeps a bounded listing.
 */
export class FoundTools {
  private readonly found = new Map<string, ServedTool>();

  add(tools: readonly ServedTool[]): void {
    for (const tool of tools) {
      this.found.delete(tool.name);
      this.found.set(tool.name, tool);
      if (this.found.size > MAX_FOUND) this.found.delete(this.found.keys().next().value!);
    }
  }

  /** What was found that is still served as it was (the catalog may have changed since). */
  current(served: ServedTools): ServedTool[] {
    return [...this.found.values()].filter((tool) => served.get(tool.name)?.entry === tool.entry);
  }
}
