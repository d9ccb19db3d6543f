import type { ToolDefinition } from './tool.js';

/** Tools an MCP hub adapted from a server's listing: `gen_ai.tool.type` `extension` on their spans. */
const fromServers = new WeakSet<ToolDefinition>();

/** A reviewed server's tools: whether the definition offered now is the one a person accepted. */
const reviewedNow = new WeakMap<ToolDefinition, () => boolean>();

/** Marks `tool` as adapted from a server; `reviewed` is given for a server marked `reviewed`. */
export function markServerTool(tool: ToolDefinition, reviewed?: () => boolean): void {
  fromServers.add(tool);
  if (reviewed !== undefined) reviewedNow.set(tool, reviewed);
}

/**
 * Whether a person read `tool`'s definition as offered now: its server is `reviewed` and the definition
 * is the pinned (accepted) one. A changed definition nobody accepted yet is not reviewed.
 */
export function definitionReviewed(tool: ToolDefinition): boolean {
  return reviewedNow.get(tool)?.() ?? false;
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
