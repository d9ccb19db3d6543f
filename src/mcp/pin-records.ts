import { argumentsDigest } from '../runner/digest.js';
import type { McpServerRecord } from '../store/store.js';

/**
 * The definition of a tool that a person (or first sight) accepted: what the model reads and what
 * decides how a call is checked and gated. Its digest is SHA-256 of it with keys sorted, so a server
 * that only reorders keys has not changed it.
 */
export interface PinnedDefinition {
  readonly title?: string;
  readonly description?: string;
  readonly inputSchema?: unknown;
  readonly outputSchema?: unknown;
  readonly annotations?: unknown;
}

/** A pin as kept in the store. Versioned: read through `pinOf`, never a cast. */
export interface PinRecord {
  readonly v: 1;
  readonly digest: string;
  readonly definition: PinnedDefinition;
}

/** What an inbox item of kind `tool_change` carries for the person and for its approval. */
export interface ToolChangeDetail {
  readonly hub: string;
  readonly server: string;
  readonly tool: string;
  /** The digest of the new definition: approving the item pins exactly this one. */
  readonly digest: string;
  /** Null for a tool added since a `reviewed` server's tool list was pinned. */
  readonly before: PinnedDefinition | null;
  readonly after: PinnedDefinition;
  /** What changed, in words, such as `description changed`, `input property "to" added`. */
  readonly changes: readonly string[];
}

/**
 * Pins live beside the hub's runtime servers in the store, under the hub name `<hub>/pins` (a hub
 * name cannot hold "/", so it never meets a real hub), one record per `<server>/<tool>`: shared by every
 * node on the store, kept across restarts, and no schema change for any store.
 */
export function pinHub(hub: string): string {
  return `${hub}/pins`;
}

export function pinName(server: string, tool: string): string {
  return `${server}/${tool}`;
}

/** The parts of an MCP tool that make its definition. */
export function definitionOf(tool: {
  readonly title?: unknown;
  readonly description?: unknown;
  readonly inputSchema?: unknown;
  readonly outputSchema?: unknown;
  readonly annotations?: unknown;
}): PinnedDefinition {
  const out: Record<string, unknown> = {};
  if (tool.title !== undefined) out.title = tool.title;
  if (tool.description !== undefined) out.description = tool.description;
  if (tool.inputSchema !== undefined) out.inputSchema = tool.inputSchema;
  if (tool.outputSchema !== undefined) out.outputSchema = tool.outputSchema;
  if (tool.annotations !== undefined) out.annotations = tool.annotations;
  return out as PinnedDefinition;
}

export function definitionDigest(definition: PinnedDefinition): string {
  return argumentsDigest(definition);
}

/** A stored pin, or `undefined` when the record is not one this version reads (it is then pinned anew). */
export function pinOf(options: unknown): PinRecord | undefined {
  if (options === null || typeof options !== 'object') return undefined;
  const { v, digest, definition } = options as Record<string, unknown>;
  if (v !== 1 || typeof digest !== 'string' || !/^[0-9a-f]{64}$/.test(digest)) return undefined;
  if (definition === null || typeof definition !== 'object' || Array.isArray(definition)) return undefined;
  return { v: 1, digest, definition: definition as PinnedDefinition };
}

/** The store record that pins `definition` for `server`'s `tool`. */
export function pinRecord(
  hub: string,
  server: string,
  tool: string,
  definition: PinnedDefinition,
  now: number,
): McpServerRecord {
  const pin: PinRecord = { v: 1, digest: definitionDigest(definition), definition };
  return { hub: pinHub(hub), name: pinName(server, tool), options: pin, updatedAt: now };
}

/** The `tool_change` detail of an inbox item, or `undefined` when it is not one. */
export function toolChangeOf(detail: unknown): ToolChangeDetail | undefined {
  if (detail === null || typeof detail !== 'object') return undefined;
  const d = detail as Record<string, unknown>;
  const strings = ['hub', 'server', 'tool', 'digest'] as const;
  if (!strings.every((key) => typeof d[key] === 'string')) return undefined;
  if (d.after === null || typeof d.after !== 'object') return undefined;
  return detail as ToolChangeDetail;
}

/**
 * The record an approval of a `tool_change` item writes: the new definition pinned, provided it is
 * still the one the person saw (its digest).
 */
export function acceptedPin(detail: ToolChangeDetail, now: number): McpServerRecord {
  if (definitionDigest(detail.after) !== detail.digest) {
    throw new Error(
      `The changed definition of tool "${detail.tool}" (MCP server "${detail.server}") in this inbox item does not match its digest; it was not accepted.`,
    );
  }
  return pinRecord(detail.hub, detail.server, detail.tool, detail.after, now);
}

/** What changed between two definitions, in words a person reads in the inbox. */
export function describeChanges(before: PinnedDefinition, after: PinnedDefinition): string[] {
  const changes: string[] = [];
  const same = (a: unknown, b: unknown): boolean => argumentsDigest(a ?? null) === argumentsDigest(b ?? null);
  if (!same(before.title, after.title)) changes.push('title changed');
  if (!same(before.description, after.description)) changes.push('description changed');
  if (!same(before.inputSchema, after.inputSchema)) {
    const was = propertiesOf(before.inputSchema);
    const now = propertiesOf(after.inputSchema);
    const added = [...now.keys()].filter((key) => !was.has(key));
    const removed = [...was.keys()].filter((key) => !now.has(key));
    const altered = [...now.keys()].filter((key) => was.has(key) && !same(was.get(key), now.get(key)));
    if (added.length > 0) changes.push(`input properties added: ${added.join(', ')}`);
    if (removed.length > 0) changes.push(`input properties removed: ${removed.join(', ')}`);
    if (altered.length > 0) changes.push(`input properties changed: ${altered.join(', ')}`);
    if (added.length + removed.length + altered.length === 0) changes.push('input schema changed');
  }
  if (!same(before.outputSchema, after.outputSchema)) changes.push('output schema changed');
  if (!same(before.annotations, after.annotations)) {
    const was = (before.annotations ?? {}) as Record<string, unknown>;
    const now = (after.annotations ?? {}) as Record<string, unknown>;
    const keys = [...new Set([...Object.keys(was), ...Object.keys(now)])].filter((key) => !same(was[key], now[key]));
    changes.push(
      `annotations changed: ${keys.map((key) => `${key} ${JSON.stringify(was[key] ?? null)} → ${JSON.stringify(now[key] ?? null)}`).join(', ')}`,
    );
  }
  return changes;
}

function propertiesOf(schema: unknown): Map<string, unknown> {
  const properties = (schema as { properties?: unknown } | null)?.properties;
  if (properties === null || typeof properties !== 'object') return new Map();
  return new Map(Object.entries(properties as Record<string, unknown>).slice(0, 1_000));
}
