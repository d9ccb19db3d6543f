import type { IncomingMessage } from 'node:http';
import type { AuthInfo, Implementation, OAuthTokenVerifier } from '@modelcontextprotocol/server';
import { MAX_TIMER_MS } from '../clock.js';
import { ConfigurationError } from '../errors.js';
import { httpServerSettings, type HttpServerOptions, type HttpServerSettings } from '../http/server-options.js';
import {
  countRule,
  defaultsOf,
  numberOptions,
  readNumbers,
  type NumberPaths,
  type NumberSettings,
} from '../options.js';
import type { PolicyRule } from '../policy/policy.js';
import { checkCallLimits } from '../runner/call-limits.js';

/** Who is calling, as far as the server knows when a session starts. */
export interface ServeClientInfo {
  /** The verified bearer token's details, over HTTP with `authenticate`. */
  readonly auth?: AuthInfo;
  /** The HTTP request that opened the session; absent over stdio and other transports. */
  readonly request?: IncomingMessage;
  /** What the client says it is (`initialize`'s `clientInfo`); the client's word, never proof. */
  readonly client?: Implementation;
}

/** How HTTP clients prove who they are. */
export interface ServeAuthenticateOptions {
  /** Checks a bearer token (the MCP SDK's `OAuthTokenVerifier`); a token it refuses gets a 401. */
  readonly verifier: OAuthTokenVerifier;
  /** Scopes every token must have (403 otherwise). */
  readonly requiredScopes?: readonly string[];
  /** Sent in `WWW-Authenticate` so clients find the authorization server (OAuth protected resource metadata). */
  readonly resourceMetadataUrl?: string;
}

/** What `wardrik.mcpServer(options)` takes. */
export interface ServeOptions {
  /** Patterns of the tools to serve, as agents take them: `orders/*`, `github/*`, `orders/find_order`. */
  readonly tools: readonly string[];
  /**
   * Patterns of tools served but not listed, for large catalogs: clients are listed `wardrik__search_tools`
   * instead, which finds them by what they do (docs/mcp-server.md, "Large catalogs"). Such as `['github/*']`;
   * a tool both `tools` and `deferred` match is deferred, so `tools: ['**'], deferred: ['github/*']` serves all.
   */
  readonly deferred?: readonly string[];
  /**
   * The names clients see: `qualified` (the default, `orders__find_order`) or `bare` (`find_order`,
   * refused at start-up when two served tools would share one). Stable: clients' saved prompts use them.
   */
  readonly names?: 'qualified' | 'bare';
  /** The server's name in `initialize`: `wardrik` unless given. */
  readonly name?: string;
  readonly version?: string;
  /** Told to the client's model in `initialize`. */
  readonly instructions?: string;
  /**
   * The agent id a session's calls run as: the verified token's `clientId` over HTTP with
   * `authenticate`, else `agent`. Return another id to map clients to agents with their own rules and spend.
   */
  readonly identify?: (client: ServeClientInfo) => string | Promise<string>;
  /** The agent id when neither a token nor `identify` says: `mcp`. */
  readonly agent?: string;
  /**
   * HTTP only: bearer tokens checked by the SDK's `requireBearerAuth`, or `false` to serve without
   * (say so deliberately: an HTTP server without it refuses to start).
   */
  readonly authenticate?: ServeAuthenticateOptions | false;
  /** Rules for every served call, applied with the global policy (the most restrictive wins). */
  readonly policy?: readonly PolicyRule[];
  /** Each agent's budget in US dollars: at or over it, no served call starts. */
  readonly budgetUsd?: number;
  /**
   * The most calls of each tool matching a pattern in one session (a 2025-11-25 client) or one
   * conversation (a 2026-07-28 client), such as `{ 'orders/refund_order': 3 }`: counted across nodes in the
   * store; a call past it is answered denied, unrun.
   */
  readonly maxCalls?: Readonly<Record<string, number>>;
  readonly approvals?: ServeApprovalOptions;
  readonly http?: ServeHttpOptions;
  /**
   * The secret (at least 32 characters) that signs what 2026-07-28 clients carry between requests in
   * place of a session: the conversation (`_meta['wardrik/conversation']`) and a waiting call's
   * `requestState`. Give every node that serves the same clients the same one: a retry may reach any of
   * them. A random one per server unless given (then only the node that answered can take the retry).
   */
  readonly stateKey?: string;
}

/** How a call that waits for a person is answered. */
export interface ServeApprovalOptions {
  /**
   * How long a call is held open waiting for a person: 50 000 ms, under the 60 s most clients wait
   * for an answer. Past it the client is told the call waits (with the inbox id) and that nothing ran;
   * the same call again in the same session waits on the same item. 0 answers at once.
   */
  readonly waitMs?: number;
  /** How often a held call sends a progress notification, when the client sent a progress token: 10 000 ms. */
  readonly progressMs?: number;
  /** How often a held call reads the journal for the person's answer: 250 ms. */
  readonly checkMs?: number;
  /**
   * `'elicitation'`: ask the client's own user (when the client supports elicitation), showing the
   * exact arguments and the run's labels; their answer is recorded with the client's identity as `by`.
   * Never for a session that has read outside text (its run carries `outside`): those wait for the inbox.
   * Off unless set: the inbox's people decide.
   */
  readonly via?: 'elicitation';
}

/** Limits of the Streamable HTTP server: those both of Wardrik's HTTP servers take, and the MCP server's own. */
export interface ServeHttpOptions extends HttpServerOptions {
  /** `Origin` values accepted when a request has one; loopback origins for a loopback bind unless given. */
  readonly allowedOrigins?: readonly string[];
  /** The largest request body: 1 MiB; larger ones get 413. */
  readonly maxBodyBytes?: number;
  /** A session with no request for this long is closed: 30 minutes. */
  readonly idleMs?: number;
  /** Calls one session may have in flight at once; more answer an error at once: 64. */
  readonly maxCallsPerSession?: number;
  /** Sessions open at once; a new one past it gets 503: 1 000. */
  readonly maxSessions?: number;
  /**
   * Sessions one client may have open at once (a client is the verified token's `clientId`, so this
   * needs `authenticate`); a new one past it gets 503, and the server-wide `maxSessions` still holds: 100.
   */
  readonly maxSessionsPerClient?: number;
  /**
   * Calls one 2026-07-28 client (its agent id) may have running as tasks on this node at once: a task outlives
   * its request, so nothing else bounds them. A call past it answers an error at once, unrun: 64.
   */
  readonly maxTasksPerClient?: number;
  /**
   * `subscriptions/listen` streams one client may hold open at once (the verified token's `clientId`, so this
   * needs `authenticate`); one past it gets 503, and the server-wide bound of 1 024 still holds: 100.
   */
  readonly maxListensPerClient?: number;
}

/** The number options of `mcpServer`, each declared once: where in `ServeOptions`, default and range. */
export const SERVE_NUMBERS = numberOptions<
  ServeOptions,
  `http.${NumberPaths<HttpServerOptions>}` | `maxCalls.${string}`
>()({
  budgetUsd: { path: 'budgetUsd', rule: { min: 0, unit: 'US dollars' } },
  waitMs: { path: 'approvals.waitMs', default: 50_000, rule: countRule(0, MAX_TIMER_MS) },
  progressMs: { path: 'approvals.progressMs', default: 10_000, rule: countRule(1, MAX_TIMER_MS) },
  checkMs: { path: 'approvals.checkMs', default: 250, rule: countRule(1, MAX_TIMER_MS) },
  maxBodyBytes: { path: 'http.maxBodyBytes', default: 1024 * 1024, rule: countRule(1, 2 ** 31) },
  idleMs: { path: 'http.idleMs', default: 30 * 60_000, rule: countRule(1, MAX_TIMER_MS) },
  maxCallsPerSession: { path: 'http.maxCallsPerSession', default: 64, rule: countRule(1, 1_000_000) },
  maxSessions: { path: 'http.maxSessions', default: 1_000, rule: countRule(1, 1_000_000) },
  maxSessionsPerClient: { path: 'http.maxSessionsPerClient', default: 100, rule: countRule(1, 1_000_000) },
  maxTasksPerClient: { path: 'http.maxTasksPerClient', default: 64, rule: countRule(1, 1_000_000) },
  maxListensPerClient: { path: 'http.maxListensPerClient', default: 100, rule: countRule(1, 1_000_000) },
});

/** The options with their defaults, checked. */
export interface ServeSettings extends NumberSettings<typeof SERVE_NUMBERS> {
  readonly tools: readonly string[];
  readonly deferred: readonly string[];
  readonly names: 'qualified' | 'bare';
  readonly name: string;
  readonly version: string;
  readonly instructions: string | undefined;
  readonly identify: ((client: ServeClientInfo) => string | Promise<string>) | undefined;
  readonly agent: string;
  readonly authenticate: ServeAuthenticateOptions | false | undefined;
  readonly policy: readonly PolicyRule[] | undefined;
  readonly maxCalls?: Readonly<Record<string, number>>;
  readonly viaElicitation: boolean;
  readonly server: HttpServerSettings;
  readonly allowedOrigins: readonly string[] | undefined;
  readonly stateKey: string | undefined;
}

export const SERVE_DEFAULTS = defaultsOf(SERVE_NUMBERS);

/** Checks `wardrik.mcpServer` options; a bad one throws a ConfigurationError naming it and the fix. */
export function serverSettings(options: ServeOptions): ServeSettings {
  if (options === null || typeof options !== 'object') {
    throw new ConfigurationError("mcpServer takes an options object: wardrik.mcpServer({ tools: ['orders/*'] }).");
  }
  const { tools, names = 'qualified', identify, authenticate, approvals = {}, http = {} } = options;
  if (
    !Array.isArray(tools as unknown) ||
    tools.length === 0 ||
    !tools.every((t) => typeof t === 'string' && t !== '')
  ) {
    throw new ConfigurationError(
      "mcpServer: tools is a list of tool patterns to serve, such as tools: ['orders/*']; serving nothing is refused.",
    );
  }
  const { deferred = [] } = options;
  if (!Array.isArray(deferred as unknown) || !deferred.every((t) => typeof t === 'string' && t !== ''))
    throw new ConfigurationError(
      "mcpServer: deferred is a list of tool patterns served but not listed, such as deferred: ['github/*']: clients find them with wardrik__search_tools.",
    );
  if (names !== 'qualified' && names !== 'bare')
    throw new ConfigurationError(`mcpServer: names is "qualified" or "bare"; got ${JSON.stringify(names)}.`);
  if (identify !== undefined && typeof identify !== 'function')
    throw new ConfigurationError('mcpServer: identify is a function (client) => agent id.');
  if (
    authenticate !== undefined &&
    authenticate !== false &&
    typeof authenticate?.verifier?.verifyAccessToken !== 'function'
  ) {
    throw new ConfigurationError(
      'mcpServer: authenticate is { verifier } with a verifyAccessToken(token) method, or false to serve HTTP without tokens.',
    );
  }
  const text = (key: string, value: unknown, fallback: string): string => {
    if (value === undefined) return fallback;
    if (typeof value !== 'string' || value === '')
      throw new ConfigurationError(`mcpServer: ${key} is a non-empty string; got ${JSON.stringify(value)}.`);
    return value;
  };
  const hosts = (key: string, value: unknown): readonly string[] | undefined => {
    if (value === undefined) return undefined;
    if (!Array.isArray(value) || !value.every((v) => typeof v === 'string'))
      throw new ConfigurationError(`mcpServer: http.${key} is a list of strings.`);
    return Object.freeze([...(value as string[])]);
  };
  const numbers = readNumbers('mcpServer: ', options, SERVE_NUMBERS);
  checkCallLimits(options.maxCalls, 'mcpServer');
  return Object.freeze({
    tools: Object.freeze([...tools]),
    deferred: Object.freeze([...deferred]),
    names,
    name: text('name', options.name, 'wardrik'),
    version: text('version', options.version, '0.1.0'),
    instructions: options.instructions === undefined ? undefined : text('instructions', options.instructions, ''),
    identify,
    agent: text('agent', options.agent, 'mcp'),
    authenticate,
    policy: options.policy,
    ...(options.maxCalls === undefined ? {} : { maxCalls: Object.freeze({ ...options.maxCalls }) }),
    ...numbers,
    viaElicitation: via(approvals.via),
    server: httpServerSettings('mcpServer: http', http),
    allowedOrigins: hosts('allowedOrigins', http.allowedOrigins),
    stateKey: stateKey(options.stateKey),
  });
}

function via(value: unknown): boolean {
  if (value === undefined) return false;
  if (value !== 'elicitation')
    throw new ConfigurationError(
      `mcpServer: approvals.via is 'elicitation' or left out; got ${JSON.stringify(value)}.`,
    );
  return true;
}

function stateKey(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || Buffer.byteLength(value) < 32)
    throw new ConfigurationError(
      'mcpServer: stateKey is a secret string of at least 32 characters (such as 32 random bytes in hex), the same on every node; or leave it out for a random one per server.',
    );
  return value;
}
