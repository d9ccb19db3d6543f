import type { McpServerRecord } from '../store/store.js';
import type { HubSettings } from './hub-settings.js';
import { credentialRefusal, httpUrlOf, serverDefinition, type McpServerOptions } from './options.js';

/** What this node runs under a stored server's name now, if anything. */
export interface RunningServer {
  readonly runtime: boolean;
  readonly updatedAt: number;
  readonly options: McpServerOptions;
}

/**
 * What reconciling does with one stored runtime server: start (or restart) it, leave what runs as it is, or
 * refuse it with a warning, stopping the one running under its name when `stop` says so.
 */
export type StoredServerVerdict =
  | { readonly kind: 'start'; readonly definition: McpServerOptions }
  | { readonly kind: 'unchanged' }
  | { readonly kind: 'refused'; readonly warning: string; readonly stop: 'runtime' | 'any' | 'none' };

/** Checks a stored server against this hub's rules; name claims are the hub's to check after. */
export function storedServerVerdict(
  settings: HubSettings,
  record: McpServerRecord,
  running: RunningServer | undefined,
): StoredServerVerdict {
  const hub = settings.name;
  const stored = `The stored MCP server "${record.name}" of hub "${hub}"`;
  let definition: McpServerOptions;
  try {
    definition = serverDefinition(hub, record.name, record.options, true);
  } catch (error) {
    return { kind: 'refused', warning: `${stored} cannot be used: ${(error as Error).message}`, stop: 'none' };
  }
  const refusal = credentialRefusal(hub, record.name, definition, settings.runtimeCredentials);
  if (refusal !== undefined) {
    const warning = `The stored MCP server "${record.name}" is not started here: ${refusal}`;
    return { kind: 'refused', warning, stop: 'runtime' };
  }
  if (running !== undefined && !running.runtime) {
    const warning = `${stored} has the name of a configured server here; the configured one is kept.`;
    return { kind: 'refused', warning, stop: 'none' };
  }
  if (running?.updatedAt === record.updatedAt && sameOptions(running.options, definition)) return { kind: 'unchanged' };
  if (settings.check !== undefined && httpUrlOf(definition) === undefined) {
    const warning = `${stored} runs a command, which this hub's egress check refuses; it is not started here.`;
    return { kind: 'refused', warning, stop: 'any' };
  }
  return { kind: 'start', definition };
}

function sameOptions(a: McpServerOptions, b: McpServerOptions): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
