import type { ToolDefinition } from './tool.js';

/** Tools an MCP hub adapted from a server's listing: `gen_ai.tool.type` `extension` on their spans. */
const fromServers = new WeakSet<ToolDefinition>();

export function markServerTool(tool: ToolDefinition): void {
  fromServers.add(tool);
}

/** Whether `tool` comes from an MCP server (the conventions' `extension`), not from this app (`function`). */
export function isServerTool(tool: ToolDefinition): boolean {
  return fromServers.has(tool);
}

/** What a turn knows of each tool it offers. */
export interface ToolRef {
  /** `toolset/tool` */
  readonly ref: string;
  readonly description: string;
  /** It comes from an MCP server: `gen_ai.tool.type` `extension`. */
  readonly extension: boolean;
  /** Where outsiders write in its answers (`@OutsideFields`), for labels on values. */
  readonly outsideFields?: readonly string[];
}
