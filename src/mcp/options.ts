import { ConfigurationError } from '../errors.js';
import {
  CALL_TIMEOUT_RULE,
  countRule,
  defaultsOf,
  describeRule,
  meetsRule,
  numberOptions,
  timerRule,
} from '../options.js';
import type { Store } from '../store/store.js';
import { TOOLSET_NAME, TOOLSET_NAME_RULE } from '../tools/names.js';
import type { EgressCheck } from './egress.js';
import { MAX_MESSAGE_BYTES } from './message-limit.js';

/** Start a local server as a child process and talk to it over its stdin and stdout. */
export interface StdioTransportOptions {
  readonly command: string;
  readonly args?: readonly string[];
  /**
   * Added to the child's environment, which otherwise holds only HOME, LOGNAME, PATH, SHELL, TERM and
   * USER (the MCP SDK's safe list), never the whole of this process's environment.
   */
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
}

/** Reach a server over Streamable HTTP. */
export interface HttpTransportOptions {
  readonly url: string;
  readonly headers?: Readonly<Record<string, string>>;
}

export type McpTransportOptions = { readonly stdio: StdioTransportOptions } | { readonly http: HttpTransportOptions };

/** One MCP server. The same shape for configured servers and for `hub.add` (where it must be plain data). */
export interface McpServerOptions {
  readonly transport: McpTransportOptions;
  /** Offer only these of the server's tools (by the server's own names). All when absent. */
  readonly only?: readonly string[];
  /** Its answers are not labelled `outside`, and its hints are believed as they change. Off unless set. */
  readonly trusted?: boolean;
  /**
   * A person read its tool definitions: as pinned, they do not steer a turn or label a run (a changed one does
   * until a person accepts it). Its answers are still labelled `outside` unless `trusted`. Off unless set.
   */
  readonly reviewed?: boolean;
  /**
   * Whether its calls wait for a person when no policy rule decides: `true` always, `false` never.
   * Absent: every tool that is not read-only is gated (and, for an untrusted server, stays gated).
   */
  readonly gated?: boolean;
  /**
   * The name of a secret, resolved by the credential provider at each connect (environment variable
   * `NAME` by default), never stored: sent as `Authorization: Bearer <secret>` over HTTP, and set as
   * the environment variable `NAME` of a stdio server's process.
   */
  readonly credential?: string;
  /** One call's time-out in milliseconds (the runner's, 60 s, unless set). */
  readonly timeoutMs?: number;
  /**
   * What becomes of the server's questions (`elicitation/create`, form and URL mode): `'inbox'` asks a
   * person (an inbox item of kind `question`), `'decline'` declines each at once, `false` does not offer
   * the capability. The hub's `elicitation` unless set.
   */
  readonly elicitation?: ElicitationMode;
  /** OAuth for an HTTP server that asks for it (see `McpOAuthOptions`). */
  readonly oauth?: McpOAuthOptions;
}

/**
 * OAuth for a remote (HTTP) server, through the MCP SDK's client auth: discovery, PKCE, dynamic
 * registration or a Client ID Metadata Document, scope step-up and refresh. Tokens are kept in the
 * store, encrypted. With the authorization code grant (the default) a person signs in through an
 * `authorize` inbox item; `client_credentials` needs nobody.
 */
export interface McpOAuthOptions {
  /** `authorization_code` (a person signs in) unless set; `client_credentials` for machine-to-machine use. */
  readonly grant?: 'authorization_code' | 'client_credentials';
  /** A client registered with the authorization server beforehand: its id. Else Wardrik registers itself (or uses `clientMetadataUrl`). */
  readonly clientId?: string;
  /** The credential naming that client's secret (resolved by the credential provider, never stored). */
  readonly clientSecretCredential?: string;
  /** An HTTPS URL of Wardrik's Client ID Metadata Document, used as its client id where the server supports it. */
  readonly clientMetadataUrl?: string;
  /** The scopes to ask for (space-separated); else those the server asks for. */
  readonly scope?: string;
}

/** OAuth settings shared by a hub's servers. */
export interface McpHubOAuthOptions {
  /** Wardrik's callback URL, where a person's browser returns after signing in (`wardrik web` serves `/oauth/callback`). */
  readonly redirectUrl?: string;
  /** The credential whose secret encrypts the tokens in the store: `WARDRIK_OAUTH_KEY` unless set (at least 16 characters). */
  readonly keyCredential?: string;
}

/** See `McpServerOptions.elicitation`. */
export type ElicitationMode = 'inbox' | 'decline' | false;

/** Reconnection backoff: exponential with jitter, from `baseDelayMs`, never more than `maxDelayMs` (≤ 60 s). */
export interface McpBackoffOptions {
  /** 500 ms unless set; no longer than `maxDelayMs`. */
  readonly baseDelayMs?: number;
  /** 60 000 ms unless set, and never more. */
  readonly maxDelayMs?: number;
}

/** One MCP hub: `Wardrik.create({ mcp: { servers: { github: { transport: … } } } })`. */
export interface McpHubOptions {
  /** The hub's name, in `tools.changed` events and in the store: `mcp` unless set. Several hubs need different names. */
  readonly name?: string;
  /** Servers by name; a name is the toolset its tools go in (`github` → `github__search_issues`, `github/*`). */
  readonly servers?: Readonly<Record<string, McpServerOptions>>;
  /**
   * Where servers added at runtime are kept, so every node sharing it gets them: a Store, a store URL,
   * or `false` for this node only. Wardrik's own store unless set.
   */
  readonly store?: Store | string | false;
  /** Milliseconds between re-reads of the store: 60 000 unless set; `Infinity` never re-reads on its own. */
  readonly reconcileMs?: number;
  /**
   * Checks each runtime server's URL when it is added and each time its connection starts. With a
   * check, runtime servers must use HTTP(S); commands are refused. Use `publicOnly()` when users supply URLs.
   */
  readonly check?: EgressCheck;
  /**
   * How long `Wardrik.create` waits for servers' first connection attempts, in milliseconds: 3 000
   * unless set. A server not connected by then keeps connecting in the background; one that is down
   * fails fast and never holds the others up. `0` does not wait.
   */
  readonly waitMs?: number;
  /** How long one connection attempt (start and `initialize`) may take: 10 000 ms unless set. */
  readonly connectTimeoutMs?: number;
  readonly backoff?: McpBackoffOptions;
  /** `tools/list_changed` notifications within this many milliseconds are listed once: 50 unless set. */
  readonly listDebounceMs?: number;
  /** Results longer than this many characters are cut, with a note saying so: 1 000 000 unless set. */
  readonly maxResultChars?: number;
  /**
   * The largest single message read from a server, in bytes: a stdio line, an HTTP JSON body, one SSE
   * event. 16 MiB (16 777 216) unless set. Past it the connection is closed and the call answers that
   * the message was too large, before the process holds it whole.
   */
  readonly maxMessageBytes?: number;
  /**
   * The most tools one server may offer: 1 000 unless set. A server listing more offers only its first
   * `maxTools`, with a warning naming it.
   */
  readonly maxTools?: number;
  /**
   * The credentials servers added at runtime (`hub.add`, the store) may name: none unless set. A runtime
   * server naming any other is refused, so a user who can add a server cannot have, say,
   * `DATABASE_PASSWORD` sent to it. Configured servers may name any credential.
   */
  readonly runtimeCredentials?: readonly string[];
  /** What becomes of servers' questions, for servers that do not say: `'inbox'` unless set (see `McpServerOptions.elicitation`). */
  readonly elicitation?: ElicitationMode;
  /** OAuth settings for servers with an `oauth` option. */
  readonly oauth?: McpHubOAuthOptions;
  /**
   * How long a server's question waits for a person before it is declined: 600 000 ms (10 minutes)
   * unless set. The call the question belongs to stays in flight meanwhile with its own time-out paused
   * (an agent's turn parks on the question); the time-out runs again once the person answered.
   */
  readonly elicitationWaitMs?: number;
  /** Where backoff jitter comes from; replace it for repeatable tests. */
  readonly random?: () => number;
}

/** The hub's number options, each declared once: where in `McpHubOptions`, default and range. */
export const MCP_NUMBERS = numberOptions<McpHubOptions>()({
  reconcileMs: { path: 'reconcileMs', default: 60_000, rule: timerRule({ min: 1 }, true) },
  waitMs: { path: 'waitMs', default: 3_000, rule: timerRule() },
  connectTimeoutMs: { path: 'connectTimeoutMs', default: 10_000, rule: timerRule({ min: 1 }) },
  baseDelayMs: { path: 'backoff.baseDelayMs', default: 500, rule: timerRule({ min: 1 }) },
  // Its default is also its ceiling: a longer one is held to it (McpBackoffOptions says so).
  maxDelayMs: { path: 'backoff.maxDelayMs', default: 60_000, rule: timerRule({ min: 1 }) },
  listDebounceMs: { path: 'listDebounceMs', default: 50, rule: timerRule() },
  maxResultChars: { path: 'maxResultChars', default: 1_000_000, rule: countRule(1) },
  maxMessageBytes: { path: 'maxMessageBytes', default: MAX_MESSAGE_BYTES, rule: countRule(1_024) },
  maxTools: { path: 'maxTools', default: 1_000, rule: countRule(1) },
  elicitationWaitMs: { path: 'elicitationWaitMs', default: 600_000, rule: timerRule({ min: 1 }) },
});

export const MCP_DEFAULTS = Object.freeze({
  name: 'mcp',
  ...defaultsOf(MCP_NUMBERS),
  elicitation: 'inbox' as ElicitationMode,
  /** How often a waiting question's inbox item is read again. */
  questionPollMs: 250,
});

/** A server's `oauth` option, checked. */
function oauthOptions(where: string, value: unknown, transport: McpTransportOptions): McpOAuthOptions {
  if (!('http' in transport))
    throw new ConfigurationError(
      `${where}: OAuth is for servers reached over HTTP; a stdio server takes a credential instead.`,
    );
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new ConfigurationError(
      `${where} must be an object such as { grant: 'client_credentials', clientId: 'wardrik' }.`,
    );
  const o = value as Record<string, unknown>;
  const known = ['grant', 'clientId', 'clientSecretCredential', 'clientMetadataUrl', 'scope'];
  for (const key of Object.keys(o))
    if (!known.includes(key))
      throw new ConfigurationError(`${where}: "${key}" is not an OAuth option (${known.join(', ')}).`);
  if (o.grant !== undefined && o.grant !== 'authorization_code' && o.grant !== 'client_credentials') {
    throw new ConfigurationError(
      `${where}: grant must be 'authorization_code' or 'client_credentials'; got ${JSON.stringify(o.grant)}.`,
    );
  }
  for (const key of ['clientId', 'scope', 'clientMetadataUrl'] as const) {
    if (o[key] !== undefined && (typeof o[key] !== 'string' || o[key] === ''))
      throw new ConfigurationError(`${where}: ${key} must be a non-empty string.`);
  }
  if (o.clientMetadataUrl !== undefined && !/^https:\/\/[^/]+\/./.test(o.clientMetadataUrl as string)) {
    throw new ConfigurationError(
      `${where}: clientMetadataUrl must be an https URL with a path, where Wardrik's client metadata document is served.`,
    );
  }
  if (
    o.clientSecretCredential !== undefined &&
    !(typeof o.clientSecretCredential === 'string' && CREDENTIAL_NAME.test(o.clientSecretCredential))
  ) {
    throw new ConfigurationError(
      `${where}: clientSecretCredential names a secret (such as "LINEAR_CLIENT_SECRET"); the secret itself is never put in the options.`,
    );
  }
  if (o.grant === 'client_credentials' && o.clientId === undefined)
    throw new ConfigurationError(
      `${where}: the client_credentials grant needs a pre-registered clientId (and usually clientSecretCredential).`,
    );
  return { ...(o as McpOAuthOptions) };
}

/** An `elicitation` option, checked. */
export function elicitationMode(name: string, value: unknown): ElicitationMode {
  if (value === 'inbox' || value === 'decline' || value === false) return value;
  throw new ConfigurationError(
    `${name} must be 'inbox' (ask a person), 'decline' (decline every question) or false (offer no elicitation); got ${JSON.stringify(value)}.`,
  );
}

/** Names a credential may have: it is also an environment variable's name. */
const CREDENTIAL_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/** The hub's `runtimeCredentials`: credential names, checked like a server's `credential`. */
export function runtimeCredentialList(label: string, value: unknown): ReadonlySet<string> {
  if (value === undefined) return new Set();
  if (!Array.isArray(value) || !value.every((name) => typeof name === 'string' && CREDENTIAL_NAME.test(name))) {
    throw new ConfigurationError(
      `${label}: runtimeCredentials is an array of credential names servers added at runtime may use, such as ['LINEAR_TOKEN'].`,
    );
  }
  return new Set(value as string[]);
}

/** Why a runtime server may not use the credential it names, or `undefined` when it may (or names none). */
export function credentialRefusal(
  hub: string,
  name: string,
  definition: McpServerOptions,
  allowed: ReadonlySet<string>,
): string | undefined {
  const credential = [definition.credential, definition.oauth?.clientSecretCredential].find(
    (named) => named !== undefined && !allowed.has(named),
  );
  if (credential === undefined) return undefined;
  return (
    `MCP server "${name}" of hub "${hub}" names the credential "${credential}", which servers added at runtime may not use ` +
    `(allowed: ${[...allowed].join(', ') || 'none'}). List it in the hub's runtimeCredentials if such servers are meant to have it.`
  );
}

/** Headers that carry secrets: a runtime server must name a credential instead, since its options are stored. */
const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie']);
const SERVER_FLAGS = ['trusted', 'reviewed', 'gated'] as const;

/**
 * Checks a server's options and returns a frozen copy. `runtime` servers (from `hub.add` or the store)
 * must be plain data: no functions, no class instances, nothing JSON cannot carry, and no secret headers.
 */
export function serverDefinition(hub: string, name: string, options: unknown, runtime: boolean): McpServerOptions {
  const where = `MCP server "${name}" of hub "${hub}"`;
  if (typeof name !== 'string' || !TOOLSET_NAME.test(name)) {
    throw new ConfigurationError(
      `MCP server name ${JSON.stringify(name)} (hub "${hub}") is not ${TOOLSET_NAME_RULE}; it is the toolset its tools go in, so rename it, such as "github".`,
    );
  }
  if (runtime) plainData(options, where, 'options', 0);
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new ConfigurationError(`${where}: options must be an object such as { transport: { http: { url } } }.`);
  }
  const o = options as Record<string, unknown>;
  const known = new Set(['transport', 'only', ...SERVER_FLAGS, 'credential', 'timeoutMs', 'elicitation', 'oauth']);
  for (const key of Object.keys(o)) {
    if (!known.has(key))
      throw new ConfigurationError(`${where}: "${key}" is not a server option (${[...known].join(', ')}).`);
  }
  const transport = transportOf(o.transport, where, runtime);
  if (o.only !== undefined && !(Array.isArray(o.only) && o.only.every((t) => typeof t === 'string' && t !== ''))) {
    throw new ConfigurationError(
      `${where}: only must be an array of the server's tool names, such as ['search_issues'].`,
    );
  }
  for (const flag of SERVER_FLAGS) {
    if (o[flag] !== undefined && typeof o[flag] !== 'boolean')
      throw new ConfigurationError(
        `${where}: ${flag} must be true or false; got ${JSON.stringify(o[flag])}. Write ${flag}: true or leave it out.`,
      );
  }
  if (o.credential !== undefined && !(typeof o.credential === 'string' && CREDENTIAL_NAME.test(o.credential))) {
    throw new ConfigurationError(
      `${where}: credential names a secret (such as "GITHUB_TOKEN": letters, digits and "_", not starting with a digit); the secret itself is never put in the options.`,
    );
  }
  const timeoutMs = o.timeoutMs;
  if (timeoutMs !== undefined && !meetsRule(timeoutMs, CALL_TIMEOUT_RULE)) {
    throw new ConfigurationError(
      `${where}: timeoutMs is ${describeRule(CALL_TIMEOUT_RULE)}; got ${JSON.stringify(timeoutMs)}.`,
    );
  }
  if (o.elicitation !== undefined) elicitationMode(`${where}: elicitation`, o.elicitation);
  const oauth = o.oauth === undefined ? undefined : oauthOptions(`${where}: oauth`, o.oauth, transport);
  return deepFrozen({
    transport,
    ...(o.only === undefined ? {} : { only: [...(o.only as string[])] }),
    ...(o.trusted === undefined ? {} : { trusted: o.trusted as boolean }),
    ...(o.reviewed === undefined ? {} : { reviewed: o.reviewed as boolean }),
    ...(o.gated === undefined ? {} : { gated: o.gated as boolean }),
    ...(o.credential === undefined ? {} : { credential: o.credential as string }),
    ...(timeoutMs === undefined ? {} : { timeoutMs: timeoutMs as number }),
    ...(o.elicitation === undefined ? {} : { elicitation: o.elicitation as ElicitationMode }),
    ...(oauth === undefined ? {} : { oauth }),
  });
}

function transportOf(value: unknown, where: string, runtime: boolean): McpTransportOptions {
  const hint = `transport must be { stdio: { command, args?, env?, cwd? } } or { http: { url, headers? } }`;
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new ConfigurationError(`${where}: ${hint}.`);
  const keys = Object.keys(value);
  if (keys.length !== 1 || (keys[0] !== 'stdio' && keys[0] !== 'http'))
    throw new ConfigurationError(`${where}: ${hint}; got keys ${JSON.stringify(keys)}.`);
  const t = value as Record<string, Record<string, unknown> | undefined>;
  if (t.stdio !== undefined) {
    const s = t.stdio;
    if (s === null || typeof s !== 'object') throw new ConfigurationError(`${where}: ${hint}.`);
    if (typeof s.command !== 'string' || s.command === '')
      throw new ConfigurationError(
        `${where}: stdio.command must be the program to start, such as "github-mcp-server".`,
      );
    if (s.args !== undefined && !(Array.isArray(s.args) && s.args.every((a) => typeof a === 'string'))) {
      throw new ConfigurationError(`${where}: stdio.args must be an array of strings.`);
    }
    stringRecord(s.env, `${where}: stdio.env`);
    if (s.cwd !== undefined && typeof s.cwd !== 'string')
      throw new ConfigurationError(`${where}: stdio.cwd must be a directory path.`);
    return {
      stdio: {
        command: s.command,
        ...(s.args === undefined ? {} : { args: [...(s.args as string[])] }),
        ...(s.env === undefined ? {} : { env: { ...(s.env as Record<string, string>) } }),
        ...(s.cwd === undefined ? {} : { cwd: s.cwd }),
      },
    };
  }
  const h = t.http;
  if (h === null || typeof h !== 'object') throw new ConfigurationError(`${where}: ${hint}.`);
  if (typeof h.url !== 'string')
    throw new ConfigurationError(`${where}: http.url must be the server's URL, such as "https://mcp.example.com/mcp".`);
  let url: URL;
  try {
    url = new URL(h.url);
  } catch {
    throw new ConfigurationError(`${where}: http.url ${JSON.stringify(h.url)} is not a URL.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ConfigurationError(`${where}: http.url must be http: or https:; got ${url.protocol}.`);
  stringRecord(h.headers, `${where}: http.headers`);
  if (runtime && h.headers !== undefined) {
    for (const header of Object.keys(h.headers as object)) {
      if (SECRET_HEADERS.has(header.toLowerCase())) {
        throw new ConfigurationError(
          `${where}: the "${header}" header would be stored with the server's options; name a credential instead (credential: "LINEAR_TOKEN"), which is resolved at each connect and never stored.`,
        );
      }
    }
  }
  return {
    http: { url: h.url, ...(h.headers === undefined ? {} : { headers: { ...(h.headers as Record<string, string>) } }) },
  };
}

function stringRecord(value: unknown, what: string): void {
  if (value === undefined) return;
  if (
    value === null ||
    typeof value !== 'object' ||
    Array.isArray(value) ||
    !Object.values(value).every((v) => typeof v === 'string')
  ) {
    throw new ConfigurationError(`${what} must be an object of string values.`);
  }
}

/** Refuses anything but JSON data: a runtime server's options are stored and read on other nodes. */
function plainData(value: unknown, where: string, path: string, depth: number): void {
  if (depth > 16) throw new ConfigurationError(`${where}: ${path} is nested too deeply for server options.`);
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new ConfigurationError(`${where}: ${path} must be a finite number.`);
    return;
  }
  if (typeof value === 'function') {
    throw new ConfigurationError(
      `${where}: ${path} is a function, but servers added at runtime take data only (they are stored and read on other nodes). Pass strings, numbers, booleans, arrays and plain objects; name a credential instead of passing code.`,
    );
  }
  if (typeof value !== 'object')
    throw new ConfigurationError(`${where}: ${path} is a ${typeof value}; servers added at runtime take data only.`);
  if (Array.isArray(value)) {
    value.forEach((item, i) => plainData(item, where, `${path}[${i}]`, depth + 1));
    return;
  }
  const proto = Object.getPrototypeOf(value) as { constructor?: { name?: string } } | null;
  if (proto !== Object.prototype && proto !== null) {
    throw new ConfigurationError(
      `${where}: ${path} is an instance of ${proto?.constructor?.name ?? 'a class'}; servers added at runtime take plain data only.`,
    );
  }
  for (const [key, child] of Object.entries(value)) plainData(child, where, `${path}.${key}`, depth + 1);
}

/** Whether a transport is reached over HTTP (what an egress check requires of runtime servers). */
export function httpUrlOf(options: McpServerOptions): string | undefined {
  return 'http' in options.transport ? options.transport.http.url : undefined;
}

function deepFrozen<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const child of Object.values(value)) deepFrozen(child);
    Object.freeze(value);
  }
  return value;
}
