import { EventBus } from '../telemetry/event-bus.js';
import { systemClock, systemTimers } from '../clock.js';
import { EnvCredentialProvider } from '../mcp/credentials.js';
import { McpHub, toolsetClaims } from '../mcp/hub.js';
import { serverDefinition, type McpServerOptions } from '../mcp/options.js';
import type { McpServerRecord } from '../store/store.js';
import { ToolCatalog } from '../tools/catalog.js';
import type { CommandContext } from './context.js';
import { CliError, ExitCode } from './errors.js';
import { list, table, time } from './format.js';

/** What `wardrik mcp add` takes on the command line. */
export interface McpAddOptions {
  readonly hub: string;
  readonly url?: string;
  readonly command?: string;
  readonly arg: readonly string[];
  readonly cwd?: string;
  readonly credential?: string;
  readonly trusted?: boolean;
  readonly gated?: boolean;
  readonly only?: string;
  readonly timeoutMs?: string;
}

/** `wardrik mcp list [--hub NAME]`: the runtime servers kept in the store (configured ones live in the app's code). */
export async function mcpList(ctx: CommandContext, options: { readonly hub: string }): Promise<void> {
  checkHub(options.hub);
  const servers = await ctx.withStore((store) => store.listMcpServers(options.hub));
  ctx.print({ store: ctx.storeName, hub: options.hub, servers }, () => {
    if (servers.length === 0)
      return `No runtime MCP servers in hub "${options.hub}" (store ${ctx.storeName}). Servers configured in the app's code are not kept in the store.`;
    const rows = servers.map((server) => [
      server.name,
      transportText(server.options as McpServerOptions),
      flags(server.options as McpServerOptions),
      time(server.updatedAt),
    ]);
    return `Runtime MCP servers of hub "${options.hub}" (every node on store ${ctx.storeName} runs them):\n${table(['NAME', 'TRANSPORT', 'OPTIONS', 'UPDATED'], rows)}`;
  });
}

/**
 * `wardrik mcp add NAME (--url URL | --command CMD [--arg A]…) …`: checked exactly as `hub.add` checks
 * it (the hub's own `serverDefinition`), then kept in the store; every node's hub starts it at its next
 * reconcile. The hub's egress check, when the app has one, runs there when the connection starts.
 */
export async function mcpAdd(ctx: CommandContext, name: string, options: McpAddOptions): Promise<void> {
  checkHub(options.hub);
  if ((options.url === undefined) === (options.command === undefined)) {
    throw new CliError(
      ExitCode.usage,
      'Give the server either --url URL (Streamable HTTP) or --command CMD with --arg for each argument (stdio), not both and not neither.',
    );
  }
  if (options.url !== undefined && (options.arg.length > 0 || options.cwd !== undefined)) {
    throw new CliError(ExitCode.usage, '--arg and --cwd go with --command (a stdio server), not with --url.');
  }
  let timeoutMs: number | undefined;
  if (options.timeoutMs !== undefined) {
    timeoutMs = Number(options.timeoutMs);
    if (!/^\d+$/.test(options.timeoutMs))
      throw new CliError(
        ExitCode.usage,
        `--timeout-ms must be a whole number of milliseconds; got ${JSON.stringify(options.timeoutMs)}.`,
      );
  }
  const only = options.only
    ?.split(',')
    .map((tool) => tool.trim())
    .filter((tool) => tool !== '');
  const raw = {
    transport:
      options.url !== undefined
        ? { http: { url: options.url } }
        : {
            stdio: {
              command: options.command!,
              ...(options.arg.length === 0 ? {} : { args: [...options.arg] }),
              ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
            },
          },
    ...(only === undefined ? {} : { only }),
    ...(options.trusted === undefined ? {} : { trusted: options.trusted }),
    ...(options.gated === undefined ? {} : { gated: options.gated }),
    ...(options.credential === undefined ? {} : { credential: options.credential }),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  };
  // The hub's own check of runtime server options: a ConfigurationError (exit 2) names what is wrong.
  const definition = serverDefinition(options.hub, name, raw, true);
  const record: McpServerRecord = { hub: options.hub, name, options: definition, updatedAt: ctx.io.now() };
  const replaced = await ctx.withStore(async (store) => {
    const before = (await store.listMcpServers(options.hub)).some((server) => server.name === name);
    await store.putMcpServer(record);
    return before;
  });
  ctx.print(
    { store: ctx.storeName, hub: options.hub, name, options: definition, replaced },
    () =>
      `${replaced ? 'Replaced' : 'Added'} MCP server "${name}" in hub "${options.hub}": ${transportText(definition)}${flags(definition) === '-' ? '' : ` (${flags(definition)})`}.\n` +
      `Every node on store ${ctx.storeName} starts it at its next reconcile (every 60 s unless the app sets reconcileMs); its tools are ${name}/*.`,
  );
}

/** `wardrik mcp remove NAME [--hub NAME]` */
export async function mcpRemove(ctx: CommandContext, name: string, options: { readonly hub: string }): Promise<void> {
  checkHub(options.hub);
  const removed = await ctx.withStore((store) => store.deleteMcpServer(options.hub, name));
  if (!removed) {
    throw new CliError(
      ExitCode.notFound,
      `Hub "${options.hub}" has no runtime MCP server "${name}" in store ${ctx.storeName}. \`wardrik mcp list --hub ${options.hub}\` shows them; servers configured in the app's code cannot be removed here.`,
    );
  }
  ctx.print(
    { store: ctx.storeName, hub: options.hub, name, removed: true },
    () => `Removed MCP server "${name}" from hub "${options.hub}": every node stops it at its next reconcile.`,
  );
}

/** Checks a hub name the way the hub itself does, by making one (never started: nothing connects). */
function checkHub(name: string): void {
  new McpHub(
    { name },
    {
      catalog: new ToolCatalog(),
      events: new EventBus(systemClock),
      clock: systemClock,
      timers: systemTimers,
      credentials: new EnvCredentialProvider({}),
      claims: toolsetClaims(),
      store: undefined,
    },
  );
}

function transportText(options: McpServerOptions): string {
  const transport = options.transport;
  if ('http' in transport) return transport.http.url;
  return ['stdio:', transport.stdio.command, ...(transport.stdio.args ?? [])].join(' ');
}

function flags(options: McpServerOptions): string {
  const parts: string[] = [];
  if (options.trusted === true) parts.push('trusted');
  if (options.reviewed === true) parts.push('reviewed');
  if (options.gated !== undefined) parts.push(options.gated ? 'gated' : 'not gated');
  if (options.only !== undefined) parts.push(`only ${list(options.only)}`);
  if (options.credential !== undefined) parts.push(`credential ${options.credential}`);
  if (options.timeoutMs !== undefined) parts.push(`timeout ${options.timeoutMs} ms`);
  return parts.length === 0 ? '-' : parts.join(', ');
}
