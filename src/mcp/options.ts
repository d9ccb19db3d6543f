import { MAX_TIMER_MS } from '../clock.js';
import { ConfigurationError } from '../errors.js';
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
}

/** Reconnection backoff: exponential with jitter, from `baseDelayMs`, never more than `maxDelayMs` (≤ 60 s). */
export interface McpBackoffOptions {
  /** 500 ms unless set. */
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
  /** Where backoff jitter comes from; replace it for repeatable tests. */
  readonly random?: () => number;
}

export const MCP_DEFAULTS = Object.freeze({
  name: 'mcp',
  reconcileMs: 60_000,
  waitMs: 3_000,
  connectTimeoutMs: 10_000,
  baseDelayMs: 500,
  maxDelayMs: 60_000,
  listDebounceMs: 50,
  maxResultChars: 1_000_000,
  maxMessageBytes: MAX_MESSAGE_BYTES,
  maxTools: 1_000,
});

/** Names a credential may have: it is also an environment variable's name. */
const CREDENTIAL_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/** The hub's `runtimeCredentials`: credential names, checked like a server's `credential`. */
export function runtimeCredentialList(label: string, value: unknown): ReadonlySet<string> {
  if (value === undefined) return new Set();
  if (!Array.isArray(value) || !value.every((name) => typeof name === 'string' && CREDENTIAL_NAME.test(name))) {
    throw new ConfigurationError(`${label}: runtimeCredentials is an array of credential names servers added at runtime may use, such as ['LINEAR_TOKEN'].`);
  }
  return new Set(value as string[]);
}

/** Headers that carry secrets: a runtime server must name a credential instead, since its options are stored. */
const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie']);

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
  const known = new Set(['transport', 'only', 'trusted', 'gated', 'credential', 'timeoutMs']);
  for (const key of Object.keys(o)) {
    if (!known.has(key)) throw new ConfigurationError(`${where}: "${key}" is not a server option (${[...known].join(', ')}).`);
  }
  const transport = transportOf(o.transport, where, runtime);
  if (o.only !== undefined && !(Array.isArray(o.only) && o.only.every((t) => typeof t === 'string' && t !== ''))) {
    throw new ConfigurationError(`${where}: only must be an array of the server's tool names, such as ['search_issues'].`);
  }
  for (const flag of ['trusted', 'gated'] as const) {
    if (o[flag] !== undefined && typeof o[flag] !== 'boolean') throw new ConfigurationError(`${where}: ${flag} must be true or false.`);
  }
  if (o.credential !== undefined && !(typeof o.credential === 'string' && CREDENTIAL_NAME.test(o.credential))) {
    throw new ConfigurationError(
      `${where}: credential names a secret (such as "GITHUB_TOKEN": letters, digits and "_", not starting with a digit); the secret itself is never put in the options.`,
    );
  }
  const timeoutMs = o.timeoutMs;
  if (timeoutMs !== undefined && !(typeof timeoutMs === 'number' && Number.isInteger(timeoutMs) && timeoutMs > 0 && timeoutMs <= MAX_TIMER_MS)) {
    throw new ConfigurationError(`${where}: timeoutMs is a whole number of milliseconds above 0; got ${JSON.stringify(timeoutMs)}.`);
  }
  return deepFrozen({
    transport,
    ...(o.only === undefined ? {} : { only: [...(o.only as string[])] }),
    ...(o.trusted === undefined ? {} : { trusted: o.trusted as boolean }),
    ...(o.gated === undefined ? {} : { gated: o.gated as boolean }),
    ...(o.credential === undefined ? {} : { credential: o.credential as string }),
    ...(timeoutMs === undefined ? {} : { timeoutMs: timeoutMs as number }),
  });
}

function transportOf(value: unknown, where: string, runtime: boolean): McpTransportOptions {
  const hint = `transport must be { stdio: { command, args?, env?, cwd? } } or { http: { url, headers? } }`;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new ConfigurationError(`${where}: ${hint}.`);
  const keys = Object.keys(value);
  if (keys.length !== 1 || (keys[0] !== 'stdio' && keys[0] !== 'http')) throw new ConfigurationError(`${where}: ${hint}; got keys ${JSON.stringify(keys)}.`);
  const t = value as Record<string, Record<string, unknown> | undefined>;
  if (t.stdio !== undefined) {
    const s = t.stdio;
    if (s === null || typeof s !== 'object') throw new ConfigurationError(`${where}: ${hint}.`);
    if (typeof s.command !== 'string' || s.command === '') throw new ConfigurationError(`${where}: stdio.command must be the program to start, such as "github-mcp-server".`);
    if (s.args !== undefined && !(Array.isArray(s.args) && s.args.every((a) => typeof a === 'string'))) {
      throw new ConfigurationError(`${where}: stdio.args must be an array of strings.`);
    }
    stringRecord(s.env, `${where}: stdio.env`);
    if (s.cwd !== undefined && typeof s.cwd !== 'string') throw new ConfigurationError(`${where}: stdio.cwd must be a directory path.`);
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
  if (typeof h.url !== 'string') throw new ConfigurationError(`${where}: http.url must be the server's URL, such as "https://mcp.example.com/mcp".`);
  let url: URL;
  try {
    url = new URL(h.url);
  } catch {
    throw new ConfigurationError(`${where}: http.url ${JSON.stringify(h.url)} is not a URL.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigurationError(`${where}: http.url must be http: or https:; got ${url.protocol}.`);
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
  return { http: { url: h.url, ...(h.headers === undefined ? {} : { headers: { ...(h.headers as Record<string, string>) } }) } };
}

function stringRecord(value: unknown, what: string): void {
  if (value === undefined) return;
  if (value === null || typeof value !== 'object' || Array.isArray(value) || !Object.values(value).every((v) => typeof v === 'string')) {
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
  if (typeof value !== 'object') throw new ConfigurationError(`${where}: ${path} is a ${typeof value}; servers added at runtime take data only.`);
  if (Array.isArray(value)) {
    value.forEach((item, i) => plainData(item, where, `${path}[${i}]`, depth + 1));
    return;
  }
  const proto = Object.getPrototypeOf(value) as { constructor?: { name?: string } } | null;
  if (proto !== Object.prototype && proto !== null) {
    throw new ConfigurationError(`${where}: ${path} is an instance of ${proto?.constructor?.name ?? 'a class'}; servers added at runtime take plain data only.`);
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

/** A number option: finite, at least `min` and at most `max`, or `Infinity` when allowed. */
export function numberOption(name: string, value: number | undefined, fallback: number, options: { min?: number; max?: number; infinity?: boolean } = {}): number {
  if (value === undefined) return fallback;
  if (value === Infinity && options.infinity === true) return value;
  const { min = 0, max } = options;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || (max !== undefined && value > max)) {
    const range = `${min}${max === undefined ? '' : ` and at most ${max}`}${options.infinity === true ? ', or Infinity for never' : ''}`;
    throw new ConfigurationError(`${name} must be a number of at least ${range}; got ${String(value)}.`);
  }
  return value;
}

/** A duration in milliseconds that a Node timer waits: no longer than Node's longest (a longer one fires at once). */
export function msOption(name: string, value: number | undefined, fallback: number, options: { min?: number; infinity?: boolean } = {}): number {
  return numberOption(name, value, fallback, { ...options, max: MAX_TIMER_MS });
}
