import { timingSafeEqual } from 'node:crypto';
import { OAuthError, OAuthErrorCode, type OAuthTokenVerifier } from '@modelcontextprotocol/server';
import { systemClock, type Clock } from '../clock.js';
import { Wardrik } from '../di/wardrik.js';
import { ConfigurationError } from '../errors.js';
import { MAX_MESSAGE_BYTES } from '../mcp/message-limit.js';
import type { ServeAuthenticateOptions } from '../serve/options.js';
import { StdioLines } from '../serve/stdio-lines.js';
import type { CommandContext } from './context.js';
import { CliError, ExitCode } from './errors.js';
import { serveConfig, type LoadedServeConfig } from './serve-config.js';
import { loadToolsets } from './tools-command.js';

/** `wardrik serve`'s options, as commander gives them. */
export interface ServeCommandOptions {
  readonly http?: string;
  readonly stdio?: boolean;
  readonly tools: readonly string[];
  readonly toolset: string;
  readonly names?: string;
  readonly agent?: string;
  readonly config?: string;
  readonly tokenEnv?: string;
  readonly stateKeyEnv?: string;
  readonly unauthenticated?: boolean;
  readonly waitMs?: number;
  readonly progressMs?: number;
  readonly allowedHost: readonly string[];
  readonly trustProxy?: string;
}

/**
 * `wardrik serve MODULE --stdio | --http HOST:PORT`: builds the toolsets a module exports (as `wardrik
 * tools` reads them) with Wardrik.create on the command's store, under the options of the module's
 * `wardrikOptions` or `--config FILE` (policy, budgets, agents: serve-config.ts), and serves them to MCP
 * clients until stopped (SIGINT, SIGTERM, or stdin closing under --stdio). Under --stdio, stdout is the
 * MCP channel: everything else goes to stderr.
 */
export async function serve(
  ctx: CommandContext,
  module: string,
  options: ServeCommandOptions,
  signals: NodeJS.EventEmitter = process,
): Promise<void> {
  if ((options.http === undefined) === (options.stdio !== true)) {
    throw new CliError(
      ExitCode.usage,
      'Pass exactly one of --stdio (for a client that starts this command, such as Claude Desktop) or --http HOST:PORT.',
    );
  }
  const names = options.names;
  if (names !== undefined && names !== 'qualified' && names !== 'bare')
    throw new CliError(ExitCode.usage, `--names is "qualified" or "bare"; got ${JSON.stringify(names)}.`);
  const listen = options.http === undefined ? undefined : hostPort(options.http);
  const loaded = await loadToolsets(module, options.toolset);
  const configured = serveConfig(loaded, options.config);
  const { serve: served = {}, ...creating } = configured?.config ?? {};
  const agent = options.agent ?? served.agent;
  const authenticate = listen === undefined ? undefined : httpAuthentication(ctx, options, agent ?? 'mcp');
  const stateKey = stateKeyFrom(ctx, options.stateKeyEnv);
  const toolsets = loaded.classes.map((entry) => entry.toolsetClass);
  const tools = loaded.values.length === 0 ? {} : { [options.toolset]: loaded.values.map((value) => value.tool) };
  const wardrik = await configuredBy(configured, () =>
    Wardrik.create({ ...creating, store: ctx.storeUrl, toolsets, tools }),
  );
  const warnings = wardrik.events$.subscribe((event) => {
    if (event.type === 'warning' || event.type === 'tool.skipped')
      ctx.io.err(
        `wardrik: ${event.type === 'warning' ? event.message : `skipped ${event.toolset}/${event.tool}: ${event.reason}`}\n`,
      );
  });
  try {
    // Flags win over the config's `serve`; the rest of it is mcpServer's options as they are.
    const server = await configuredBy(configured, () =>
      wardrik.mcpServer({
        ...served,
        tools: options.tools.length > 0 ? options.tools : (served.tools ?? ['**']),
        ...(names === undefined ? {} : { names }),
        ...(agent === undefined ? {} : { agent }),
        ...(authenticate === undefined ? {} : { authenticate }),
        ...(stateKey === undefined ? {} : { stateKey }),
        approvals: {
          ...served.approvals,
          ...(options.waitMs === undefined ? {} : { waitMs: options.waitMs }),
          ...(options.progressMs === undefined ? {} : { progressMs: options.progressMs }),
        },
        http: {
          ...served.http,
          ...(options.allowedHost.length === 0 ? {} : { allowedHosts: options.allowedHost }),
          ...(options.trustProxy === undefined ? {} : { trustProxy: options.trustProxy }),
        },
      }),
    );
    const from = configured === undefined ? '' : `; options from ${configured.source}`;
    const stopped = new Promise<void>((resolve) => {
      signals.once('SIGINT', resolve);
      signals.once('SIGTERM', resolve);
    });
    if (listen === undefined) {
      const transport = new StdioLines(process.stdin, process.stdout, MAX_MESSAGE_BYTES);
      const closed = new Promise<void>((resolve) => {
        transport.onclose = resolve;
        process.stdin.once('end', resolve);
      });
      await server.connect(transport);
      ctx.io.err(`wardrik: serving ${wardrik.tools().length} tool(s) over stdio; store ${ctx.storeName}${from}\n`);
      await Promise.race([stopped, closed]);
      // Paused, stdin still waits for bytes: a client that keeps its end open after the connection
      // closed (a message over the limit) would keep this process alive. Nothing else reads it.
      process.stdin.destroy();
    } else {
      const url = await server.listen(listen);
      ctx.io.err(`wardrik: serving ${wardrik.tools().length} tool(s) at ${url}; store ${ctx.storeName}${from}\n`);
      await stopped;
    }
  } finally {
    warnings.unsubscribe();
    await wardrik.close();
  }
}

/**
 * Runs a step that checks options: a ConfigurationError becomes a usage error (exit 2) that also says
 * where the options came from, since the message names the option as the library spells it.
 */
async function configuredBy<T>(configured: LoadedServeConfig | undefined, step: () => T | Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (!(error instanceof ConfigurationError)) throw error;
    const from = configured === undefined ? '' : ` (wardrik serve read its options from ${configured.source}.)`;
    throw new CliError(ExitCode.usage, `${error.message}${from}`, { cause: error });
  }
}

function hostPort(value: string): { host: string; port: number } {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+):(\d{1,5})$/.exec(value);
  const port = Number(match?.[2]);
  if (match === null || port > 65_535)
    throw new CliError(ExitCode.usage, `--http takes HOST:PORT, such as 127.0.0.1:3000; got ${JSON.stringify(value)}.`);
  return { host: match[1]!.replace(/^\[|\]$/g, ''), port };
}

/** --state-key-env NAME: the secret that signs 2026-07-28 conversations and waiting calls, read from the environment. */
function stateKeyFrom(ctx: CommandContext, name: string | undefined): string | undefined {
  if (name === undefined) return undefined;
  const key = ctx.io.env[name];
  if (key === undefined || key.length < 32)
    throw new CliError(
      ExitCode.usage,
      `--state-key-env ${name}: that environment variable is ${key === undefined ? 'not set' : 'shorter than 32 characters'}; set it to a long random secret, the same on every node.`,
    );
  return key;
}

/** --token-env NAME: one bearer token, read from the environment (never from argv, which `ps` shows). */
function httpAuthentication(
  ctx: CommandContext,
  options: ServeCommandOptions,
  agent: string,
): ServeAuthenticateOptions | false {
  if (options.unauthenticated === true) {
    if (options.tokenEnv !== undefined)
      throw new CliError(ExitCode.usage, 'Pass --token-env or --unauthenticated, not both.');
    return false;
  }
  if (options.tokenEnv === undefined) {
    throw new CliError(
      ExitCode.usage,
      'Over --http, pass --token-env NAME (the environment variable holding the bearer token clients send), or --unauthenticated to serve without one.',
    );
  }
  const token = ctx.io.env[options.tokenEnv];
  if (token === undefined || token.length < 16) {
    throw new CliError(
      ExitCode.usage,
      `--token-env ${options.tokenEnv}: that environment variable is ${token === undefined ? 'not set' : 'shorter than 16 characters'}; set it to a long random token.`,
    );
  }
  return { verifier: tokenVerifier(token, agent, { now: () => ctx.io.now() }) };
}

/** A verifier for one shared token; the client it names is `agent`. */
export function tokenVerifier(token: string, agent: string, clock: Clock = systemClock): OAuthTokenVerifier {
  const expected = Buffer.from(token);
  return {
    verifyAccessToken(given: string) {
      const actual = Buffer.from(given);
      if (actual.length !== expected.length || !timingSafeEqual(actual, expected))
        return Promise.reject(new OAuthError(OAuthErrorCode.InvalidToken, 'The bearer token is not valid.'));
      // A shared token does not expire; requireBearerAuth wants a time, so an hour from each check.
      return Promise.resolve({
        token: given,
        clientId: agent,
        scopes: [],
        expiresAt: Math.floor(clock.now() / 1000) + 3600,
      });
    },
  };
}
