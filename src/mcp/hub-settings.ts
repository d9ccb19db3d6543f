import type { ConnectionTiming } from './connection-settings.js';
import type { EgressCheck } from './egress.js';
import { ConfigurationError } from '../errors.js';
import { readNumbers } from '../options.js';
import {
  elicitationMode,
  MCP_DEFAULTS,
  MCP_NUMBERS,
  runtimeCredentialList,
  serverDefinition,
  type ElicitationMode,
  type McpHubOptions,
  type McpServerOptions,
} from './options.js';

/** A hub's options, checked and with their defaults filled in: what `McpHub` runs on. */
export interface HubSettings {
  readonly name: string;
  readonly check: EgressCheck | undefined;
  readonly reconcileMs: number;
  readonly waitMs: number;
  readonly maxResultChars: number;
  readonly maxMessageBytes: number;
  readonly maxTools: number;
  readonly runtimeCredentials: ReadonlySet<string>;
  readonly timing: ConnectionTiming;
  readonly elicitation: ElicitationMode;
  readonly elicitationWaitMs: number;
  readonly configured: ReadonlyMap<string, McpServerOptions>;
}

/** Checks a hub's options at start-up; every error names the option, what it must be and what it got. */
export function hubSettings(options: McpHubOptions): HubSettings {
  if (options === null || typeof options !== 'object')
    throw new ConfigurationError('mcp takes { servers: { name: { transport } } }, or an array of such hubs.');
  const name = options.name ?? MCP_DEFAULTS.name;
  if (typeof name !== 'string' || !/^[A-Za-z0-9_.-]{1,64}$/.test(name)) {
    throw new ConfigurationError(
      `MCP hub name ${JSON.stringify(options.name)} must be 1 to 64 letters, digits, ".", "_" or "-".`,
    );
  }
  const label = `mcp "${name}"`;
  if (options.check !== undefined && typeof options.check !== 'function')
    throw new ConfigurationError(`${label}: check must be a function (url) => verdict, such as publicOnly().`);
  const check = options.check;
  const numbers = readNumbers(`${label}: `, options, MCP_NUMBERS, [
    { lower: 'baseDelayMs', upper: 'maxDelayMs', why: 'no reconnection waits longer than maxDelayMs' },
  ]);
  const runtimeCredentials = runtimeCredentialList(label, options.runtimeCredentials);
  // Never more than the default, 60 s, whatever is given (McpBackoffOptions says so); the first wait
  // is then held to it too.
  const maxDelayMs = Math.min(MCP_DEFAULTS.maxDelayMs, numbers.maxDelayMs);
  const timing: ConnectionTiming = {
    connectTimeoutMs: numbers.connectTimeoutMs,
    baseDelayMs: Math.min(maxDelayMs, numbers.baseDelayMs),
    maxDelayMs,
    listDebounceMs: numbers.listDebounceMs,
    random: options.random ?? Math.random,
  };
  const elicitation =
    options.elicitation === undefined
      ? MCP_DEFAULTS.elicitation
      : elicitationMode(`${label}: elicitation`, options.elicitation);
  const servers = options.servers ?? {};
  if (servers === null || typeof servers !== 'object' || Array.isArray(servers)) {
    throw new ConfigurationError(
      `${label}: servers is an object of server options by name, such as { github: { transport: { stdio: { command: 'github-mcp-server' } } } }.`,
    );
  }
  const configured = new Map<string, McpServerOptions>();
  for (const [name, server] of Object.entries(servers))
    configured.set(name, serverDefinition(name, name, server, false));

  return {
    name,
    check,
    reconcileMs: numbers.reconcileMs,
    waitMs: numbers.waitMs,
    maxResultChars: numbers.maxResultChars,
    maxMessageBytes: numbers.maxMessageBytes,
    maxTools: numbers.maxTools,
    runtimeCredentials,
    timing,
    elicitation,
    elicitationWaitMs: numbers.elicitationWaitMs,
    configured,
  };
}
