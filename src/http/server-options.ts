import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { ConfigurationError } from '../errors.js';
import { countRule, numberOption, timerRule, type NumberRule } from '../options.js';
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
    /** The hold on the next wrong one, doubling with each after it: 500 ms. */
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

export const HTTP_SERVER_DEFAULTS = Object.freeze({
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 1_000,
  maxUnauthenticatedBytes: 4 * 1024 * 1024,
  wrongGuesses: Object.freeze({ free: 10, delayMs: 500, maxDelayMs: 10_000 }),
});

/** How often Node looks for connections past their time-outs, at most: its default, 30 s, let slow headers stay twice as long as stated. */
const CHECK_EVERY_MS = 1_000;

const TIMER: NumberRule = { ...timerRule({ min: 1 }), whole: true, unit: 'milliseconds' };

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
  const headersTimeoutMs = numberOption(
    `${label}.headersTimeoutMs`,
    http.headersTimeoutMs,
    HTTP_SERVER_DEFAULTS.headersTimeoutMs,
    TIMER,
  );
  const requestTimeoutMs = numberOption(
    `${label}.requestTimeoutMs`,
    http.requestTimeoutMs,
    HTTP_SERVER_DEFAULTS.requestTimeoutMs,
    TIMER,
  );
  if (headersTimeoutMs > requestTimeoutMs) {
    throw new ConfigurationError(
      `${label}.headersTimeoutMs (${headersTimeoutMs}) is longer than requestTimeoutMs (${requestTimeoutMs}); the headers are part of the request, so give a headersTimeoutMs no longer than it.`,
    );
  }
  const guesses = http.wrongGuesses ?? {};
  const defaults = HTTP_SERVER_DEFAULTS.wrongGuesses;
  return Object.freeze({
    allowedHosts:
      allowedHosts === undefined ? undefined : Object.freeze(allowedHosts.map((host) => host.toLowerCase())),
    trustProxy: trustProxy?.toLowerCase(),
    headersTimeoutMs,
    requestTimeoutMs,
    keepAliveTimeoutMs: numberOption(
      `${label}.keepAliveTimeoutMs`,
      http.keepAliveTimeoutMs,
      HTTP_SERVER_DEFAULTS.keepAliveTimeoutMs,
      TIMER,
    ),
    maxConnections: numberOption(
      `${label}.maxConnections`,
      http.maxConnections,
      HTTP_SERVER_DEFAULTS.maxConnections,
      countRule(1, 1_000_000),
    ),
    maxUnauthenticatedBytes: numberOption(
      `${label}.maxUnauthenticatedBytes`,
      http.maxUnauthenticatedBytes,
      HTTP_SERVER_DEFAULTS.maxUnauthenticatedBytes,
      { ...countRule(1_024, 2 ** 31), unit: 'bytes' },
    ),
    wrongGuesses: Object.freeze({
      free: numberOption(`${label}.wrongGuesses.free`, guesses.free, defaults.free, countRule(0, 1_000_000)),
      delayMs: numberOption(`${label}.wrongGuesses.delayMs`, guesses.delayMs, defaults.delayMs, {
        ...timerRule({ min: 0 }),
        unit: 'milliseconds',
      }),
      maxDelayMs: numberOption(`${label}.wrongGuesses.maxDelayMs`, guesses.maxDelayMs, defaults.maxDelayMs, {
        ...timerRule({ min: 0 }),
        unit: 'milliseconds',
      }),
    }),
  });
}

/** An `http.Server` with the settings' time-outs and connection cap; slow clients are looked for every second (or sooner). */
export function limitedServer(
  handler: (request: IncomingMessage, response: ServerResponse) => void,
  settings: HttpServerSettings,
): Server {
  const server = createServer(
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
