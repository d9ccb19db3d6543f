import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { ConfigurationError } from '../errors.js';
import { countRule, numberOptions, readNumbers, timerRule, type NumberRule } from '../options.js';
import type { GuessLimitSettings } from './guess-limiter.js';

/**
 * What both of Wardrik's HTTP servers (the inbox's `inboxWeb({ http })` and the MCP server's
 * `mcpServer({ http })`) take to hold up under abuse: whom they answer, how long a client may take, how
 * many may connect, how much unauthenticated bytes may fill, and how wrong credentials are slowed.
 */
export interface HttpServerOptions {
  /**
   * `Host` values answered (DNS-rebinding protection), as clients send them (`ops.example.com`,
   * `localhost:8040`). Unless given, a loopback bind answers loopback names only and other binds any.
   */
  readonly allowedHosts?: readonly string[];
  /**
   * Behind a proxy: the header it sets to the client's address, such as `x-forwarded-for`; its last
   * entry is the client for counting wrong guesses. Unless given, the connection's peer is (then,
   * behind a proxy, every client shares the proxy's address and its count).
   */
  readonly trustProxy?: string;
  /** A client that has not sent its request's headers within this is cut off (408): 10 000 ms. */
  readonly headersTimeoutMs?: number;
  /** A client that has not sent its whole request within this is cut off (408): 30 000 ms. */
  readonly requestTimeoutMs?: number;
  /** An idle kept-alive connection is closed after this: 5 000 ms. */
  readonly keepAliveTimeoutMs?: number;
  /** Connections open at once; more are closed as they arrive: 1 000. */
  readonly maxConnections?: number;
  /** Bytes of request bodies held at once for requests no credential vouches for; past it 503: 4 MiB. */
  readonly maxUnauthenticatedBytes?: number;
  /** How wrong tokens are slowed, per client address. */
  readonly wrongGuesses?: {
    /** Wrong tokens per address per minute answered at once: 10. */
    readonly free?: number;
    /** The hold on the next wrong one, doubling with each after it: 500 ms; no longer than `maxDelayMs`. */
    readonly delayMs?: number;
    /** The longest hold: 10 000 ms. */
    readonly maxDelayMs?: number;
  };
}

/** The options checked, with defaults filled in. */
export interface HttpServerSettings {
  readonly allowedHosts: readonly string[] | undefined;
  readonly trustProxy: string | undefined;
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly keepAliveTimeoutMs: number;
  readonly maxConnections: number;
  readonly maxUnauthenticatedBytes: number;
  readonly wrongGuesses: GuessLimitSettings;
}

/** How often Node looks for connections past their time-outs, at most: its default, 30 s, let slow headers stay twice as long as stated. */
const CHECK_EVERY_MS = 1_000;

const TIMER: NumberRule = { ...timerRule({ min: 1 }), whole: true, unit: 'milliseconds' };
const WAIT: NumberRule = { ...timerRule({ min: 0 }), unit: 'milliseconds' };

/** The servers' number options, each declared once: where in `HttpServerOptions`, default and range. */
export const HTTP_SERVER_NUMBERS = numberOptions<HttpServerOptions>()({
  headersTimeoutMs: { path: 'headersTimeoutMs', default: 10_000, rule: TIMER },
  requestTimeoutMs: { path: 'requestTimeoutMs', default: 30_000, rule: TIMER },
  keepAliveTimeoutMs: { path: 'keepAliveTimeoutMs', default: 5_000, rule: TIMER },
  maxConnections: { path: 'maxConnections', default: 1_000, rule: countRule(1, 1_000_000) },
  maxUnauthenticatedBytes: {
    path: 'maxUnauthenticatedBytes',
    default: 4 * 1024 * 1024,
    rule: { ...countRule(1_024, 2 ** 31), unit: 'bytes' },
  },
  free: { path: 'wrongGuesses.free', default: 10, rule: countRule(0, 1_000_000) },
  delayMs: { path: 'wrongGuesses.delayMs', default: 500, rule: WAIT },
  maxDelayMs: { path: 'wrongGuesses.maxDelayMs', default: 10_000, rule: WAIT },
});

/** Checks the options under `label` (`inboxWeb: http`); a bad one throws a ConfigurationError naming it. */
export function httpServerSettings(label: string, options: HttpServerOptions | undefined): HttpServerSettings {
  const http = options ?? {};
  if (http === null || typeof http !== 'object')
    throw new ConfigurationError(`${label} is an object, such as { allowedHosts: ['ops.example.com'] }.`);
  const allowedHosts: unknown = http.allowedHosts;
  if (
    allowedHosts !== undefined &&
    (!Array.isArray(allowedHosts) ||
      !allowedHosts.every((host): host is string => typeof host === 'string' && host !== ''))
  ) {
    throw new ConfigurationError(
      `${label}.allowedHosts is a list of Host values, such as ['ops.example.com']; got ${JSON.stringify(allowedHosts)}.`,
    );
  }
  const trustProxy = http.trustProxy;
  if (
    trustProxy !== undefined &&
    (typeof trustProxy !== 'string' || !/^[a-z0-9-]{1,64}$/i.test(trustProxy) || trustProxy.toLowerCase() === 'host')
  ) {
    throw new ConfigurationError(
      `${label}.trustProxy is the name of the header your proxy sets to the client's address, such as "x-forwarded-for"; got ${JSON.stringify(trustProxy)}.`,
    );
  }
  const numbers = readNumbers(`${label}.`, http, HTTP_SERVER_NUMBERS, [
    { lower: 'headersTimeoutMs', upper: 'requestTimeoutMs', why: 'the headers are part of the request' },
    { lower: 'delayMs', upper: 'maxDelayMs', why: 'no hold is longer than maxDelayMs' },
  ]);
  return Object.freeze({
    allowedHosts:
      allowedHosts === undefined ? undefined : Object.freeze(allowedHosts.map((host) => host.toLowerCase())),
    trustProxy: trustProxy?.toLowerCase(),
    headersTimeoutMs: numbers.headersTimeoutMs,
    requestTimeoutMs: numbers.requestTimeoutMs,
    keepAliveTimeoutMs: numbers.keepAliveTimeoutMs,
    maxConnections: numbers.maxConnections,
    maxUnauthenticatedBytes: numbers.maxUnauthenticatedBytes,
    wrongGuesses: Object.freeze({ free: numbers.free, delayMs: numbers.delayMs, maxDelayMs: numbers.maxDelayMs }),
  });
}

/** An `http.Server` with the settings' time-outs and connection cap; slow clients are looked for every second (or sooner). */
export function limitedServer(
  handler: (request: IncomingMessage, response: ServerResponse) => void,
  settings: HttpServerSettings,
): Server {
  // Loaded here, when a server is made: Node's http module costs a stdio server, which never makes one,
  // some 80 ms of CPU at start-up (startup.bench.ts).
  const server = process.getBuiltinModule('node:http').createServer(
    {
      headersTimeout: settings.headersTimeoutMs,
      requestTimeout: settings.requestTimeoutMs,
      keepAliveTimeout: settings.keepAliveTimeoutMs,
      connectionsCheckingInterval: Math.min(CHECK_EVERY_MS, settings.headersTimeoutMs),
    },
    handler,
  );
  server.maxConnections = settings.maxConnections;
  return server;
}
