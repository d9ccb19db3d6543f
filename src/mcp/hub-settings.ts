import type { ConnectionTiming } from './connection-settings.js';
import type { EgressCheck } from './egress.js';
import { ConfigurationError } from '../errors.js';
import { countRule, numberOption, timerRule } from '../options.js';
import {
  elicitationMode,
  MCP_DEFAULTS,
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
  const reconcileMs = numberOption(
    `${label}: reconcileMs`,
    options.reconcileMs,
    MCP_DEFAULTS.reconcileMs,
    timerRule({ min: 1 }, true),
  );
  const waitMs = numberOption(`${label}: waitMs`, options.waitMs, MCP_DEFAULTS.waitMs, timerRule());
  const maxResultChars = numberOption(
    `${label}: maxResultChars`,
    options.maxResultChars,
    MCP_DEFAULTS.maxResultChars,
    countRule(1),
  );
  const maxMessageBytes = numberOption(
    `${label}: maxMessageBytes`,
    options.maxMessageBytes,
    MCP_DEFAULTS.maxMessageBytes,
    countRule(1_024),
  );
  const maxTools = numberOption(`${label}: maxTools`, options.maxTools, MCP_DEFAULTS.maxTools, countRule(1));
  const runtimeCredentials = runtimeCredentialList(label, options.runtimeCredentials);
  const maxDelayMs = Math.min(
    MCP_DEFAULTS.maxDelayMs,
    numberOption(
      `${label}: backoff.maxDelayMs`,
      options.backoff?.maxDelayMs,
      MCP_DEFAULTS.maxDelayMs,
      timerRule({ min: 1 }),
    ),
  );
  const timing: ConnectionTiming = {
    connectTimeoutMs: numberOption(
      `${label}: connectTimeoutMs`,
      options.connectTimeoutMs,
      MCP_DEFAULTS.connectTimeoutMs,
      timerRule({ min: 1 }),
    ),
    baseDelayMs: Math.min(
      maxDelayMs,
      numberOption(
        `${label}: backoff.baseDelayMs`,
        options.backoff?.baseDelayMs,
        MCP_DEFAULTS.baseDelayMs,
        timerRule({ min: 1 }),
      ),
    ),
    maxDelayMs,
    listDebounceMs: numberOption(
      `${label}: listDebounceMs`,
      options.listDebounceMs,
      MCP_DEFAULTS.listDebounceMs,
      timerRule(),
    ),
    random: options.random ?? Math.random,
  };
  const elicitation =
    options.elicitation === undefined
      ? MCP_DEFAULTS.elicitation
      : elicitationMode(`${label}: elicitation`, options.elicitation);
  const elicitationWaitMs = numberOption(
    `${label}: elicitationWaitMs`,
    options.elicitationWaitMs,
    MCP_DEFAULTS.elicitationWaitMs,
    timerRule({ min: 1 }),
  );
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
    reconcileMs,
    waitMs,
    maxResultChars,
    maxMessageBytes,
    maxTools,
    runtimeCredentials,
    timing,
    elicitation,
    elicitationWaitMs,
    configured,
  };
}
