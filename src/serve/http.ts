import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server as HttpServer, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  isInitializeRequest,
  WebStandardStreamableHTTPServerTransport,
  type AuthInfo,
  type McpHttpHandler as McpHttpHandler2026,
} from '@modelcontextprotocol/server';
import type { Clock, Timer, Timers } from '../clock.js';
import { BodyBudget } from '../http/body-budget.js';
import { clientAddress, untrustedProxyHeader } from '../http/client-address.js';
import { GuessLimiter } from '../http/guess-limiter.js';
import { lingerAfterAnswer } from '../http/lingering-close.js';
import { boundToLoopback, hostRefusal, isLoopbackOrigin } from '../http/host-check.js';
import { limitedServer, type HttpServerSettings } from '../http/server-options.js';
import { connectWithDirectRequests } from './direct-requests.js';
import { postGoesToModernEra, serveWeb } from './eras.js';
import { bearerCheck } from './bearer.js';
import type { ServeAuthenticateOptions, ServeSettings } from './options.js';
import type { ServeSession } from './session.js';

/** A Node request handler, to mount in an app (Express, Fastify, NestJS) or an `http.Server`. */
export type McpRequestHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

interface HttpSession {
  readonly session: ServeSession;
  readonly transport: WebStandardStreamableHTTPServerTransport;
  /** The verified client that opened it: a request with another client's token cannot use it. */
  readonly owner: string | undefined;
  idle: Timer | undefined;
}

/**
 * Streamable HTTP for one server, both eras on one URL: a request with the 2026-07-28 per-request
 * envelope goes to the stateless handler; 2025-era ones get one SDK v2 session transport
 * (`WebStandardStreamableHTTPServerTransport`, served from Node by `serveWeb`) and one `ServeSession`
 * per MCP session, found by the `mcp-session-id` header. Before a request reaches a session it passes, in order: the Host and
 * Origin allow-lists (DNS-rebinding protection), the bearer token (unless the server is explicitly
 * unauthenticated; wrong ones are answered late past a few per client address), and the body limit
 * (a server without tokens also counts every body against the cap on unauthenticated bytes). Idle
 * sessions are closed; so is every session on `close()`.
 */
export class HttpSessions {
  private readonly sessions = new Map<string, HttpSession>();
  /** Initializes under way: counted against the bounds from the moment they pass them. */
  private opening = 0;
  /** Sessions open or opening by verified client (the token's clientId). */
  private readonly perClient = new Map<string, number>();
  /** `subscriptions/listen` streams open by verified client: each holds a connection for as long as it likes. */
  private readonly listens = new Map<string, number>();
  private readonly bearer: ((req: IncomingMessage, res: ServerResponse) => Promise<boolean>) | undefined;
  private readonly guesses: GuessLimiter;
  /** Bodies read without a token to vouch for them (a server with `authenticate: false`). */
  readonly budget: BodyBudget;
  private closed = false;
  private proxyWarned = false;

  constructor(
    private readonly settings: ServeSettings,
    private readonly open: () => ServeSession,
    /** The 2026-07-28 handler, for requests that carry the per-request envelope (stateless: no session). */
    private readonly modern: () => McpHttpHandler2026,
    authenticate: ServeAuthenticateOptions | false,
    private readonly deps: {
      /** Reports a problem a developer should see (a `warning` event). */
      readonly warn: (message: string) => void;
      /** Where idle sessions and held wrong guesses read the time and set their timers. */
      readonly clock: Clock;
      readonly timers: Timers;
    },
  ) {
    this.guesses = new GuessLimiter(settings.server.wrongGuesses, deps.clock, deps.timers);
    this.budget = new BodyBudget(settings.server.maxUnauthenticatedBytes);
    const { trustProxy } = settings.server;
    this.bearer =
      authenticate === false
        ? undefined
        : bearerCheck(authenticate, (req) => this.guesses.wrong(clientAddress(req, trustProxy), req.socket));
  }

  /** Answers to wrong tokens held now. */
  get heldGuesses(): number {
    return this.guesses.held;
  }

  readonly handle: McpRequestHandler = async (req, res) => {
    try {
      const refused = this.refusal(req);
      if (refused !== undefined) return reject(res, 403, refused);
      this.warnOfProxy(req);
      if (this.bearer !== undefined && !(await this.bearer(req, res))) return;
      // An app that parsed the body already (Express's json(), Fastify) leaves it on req.body.
      const parsed = (req as IncomingMessage & { body?: unknown }).body;
      const body =
        req.method !== 'POST'
          ? undefined
          : parsed !== undefined
            ? parsedJson(res, parsed, this.settings.maxBodyBytes)
            : await readBody(
                req,
                res,
                this.settings.maxBodyBytes,
                this.deps.timers,
                this.bearer === undefined ? this.budget : undefined,
              );
      if (body === NO_BODY) return;
      const id = req.headers['mcp-session-id'];
      if (typeof id !== 'string' && req.method === 'POST' && postGoesToModernEra(req, body))
        return await this.serveModern(req, res, body);
      if (typeof id === 'string') return await this.forward(id, req, res, body);
      if (req.method === 'POST' && isInitializeRequest(body)) return await this.start(req, res, body);
      reject(
        res,
        400,
        'Bad Request: no mcp-session-id header. Start a session with an initialize request first, or send the 2026-07-28 per-request _meta envelope.',
        -32000,
        undefined,
        requestIdOf(body),
      );
    } catch (error) {
      // The client learns nothing of the cause; the developer is told (a warning event).
      this.deps.warn(`An MCP request failed inside the server: ${(error as Error)?.message ?? String(error)}`);
      if (!res.headersSent) reject(res, 500, 'Internal server error.');
      else res.end();
    }
  };

  private warnOfProxy(req: IncomingMessage): void {
    const header = this.proxyWarned ? undefined : untrustedProxyHeader(req, this.settings.server.trustProxy);
    if (header === undefined) return;
    this.proxyWarned = true;
    this.deps.warn(
      `Requests come with the ${header} header, so a proxy is in front, but mcpServer http.trustProxy is not set: wrong tokens from every client it forwards are counted as from its one address. Set http.trustProxy (wardrik serve --trust-proxy) to the header your proxy sets to the client's address.`,
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    this.guesses.close();
    await Promise.all([...this.sessions.values()].map((entry) => entry.transport.close().catch(() => {})));
    this.sessions.clear();
  }

  /**
   * A 2026-07-28 request, to the stateless handler. A `subscriptions/listen` of a verified client counts
   * against its `maxListensPerClient` while its stream is open (the handler's own bound is server-wide).
   */
  private async serveModern(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    const owner = ownerOf(req);
    if (owner === undefined || (body as { method?: unknown } | null)?.method !== 'subscriptions/listen')
      return serveWeb(this.modern().fetch, req, res, body);
    const open = this.listens.get(owner) ?? 0;
    // Guard (listens-per-client): one client cannot hold every subscription the server keeps.
    if (open >= this.settings.maxListensPerClient) return this.tooManyListens(res, body);
    this.listens.set(owner, open + 1);
    try {
      await serveWeb(this.modern().fetch, req, res, body);
    } finally {
      const left = (this.listens.get(owner) ?? 1) - 1;
      if (left > 0) this.listens.set(owner, left);
      else this.listens.delete(owner);
    }
  }

  private tooManyListens(res: ServerResponse, body: unknown): void {
    const max = this.settings.maxListensPerClient;
    reject(
      res,
      503,
      `There are ${max} subscriptions/listen streams open for this client, the most one client may hold; close one (end its HTTP request), then listen again.`,
      -32000,
      undefined,
      requestIdOf(body),
    );
  }

  private async forward(id: string, req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    const entry = this.sessions.get(id);
    if (entry === undefined)
      return reject(
        res,
        404,
        'Session not found: it ended or was closed while idle. Start a new one with initialize.',
        -32001,
      );
    if (entry.owner !== ownerOf(req))
      return reject(res, 403, 'This session was opened by another client; start your own with initialize.');
    this.touch(id, entry);
    this.stopWhenGone(entry.transport, req, res, body);
    await serveWeb((request, options) => entry.transport.handleRequest(request, options), req, res, body);
  }

  private async start(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    if (this.closed) return reject(res, 503, 'The server is closing.');
    const { maxSessions, maxSessionsPerClient } = this.settings;
    if (this.sessions.size + this.opening >= maxSessions) {
      return reject(res, 503, `The server has ${maxSessions} sessions open, the most it keeps; try again later.`);
    }
    const owner = ownerOf(req);
    if (owner !== undefined && (this.perClient.get(owner) ?? 0) >= maxSessionsPerClient) {
      return reject(
        res,
        503,
        `There are ${maxSessionsPerClient} sessions open for this client, the most one client may have; end one (an HTTP DELETE with its mcp-session-id) or let one close while idle, then try again.`,
      );
    }
    // Counted before the first wait, so initializes sent at once cannot all pass the bounds.
    this.opening++;
    this.count(owner, 1);
    const session = this.open();
    session.request = req;
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      // As SDK v1's transport did: no comment frames on a quiet stream.
      keepAliveMs: 0,
      onsessioninitialized: (sid) => {
        session.run = sid;
        const entry: HttpSession = { session, transport, owner, idle: undefined };
        this.sessions.set(sid, entry);
        this.touch(sid, entry);
      },
      onsessionclosed: (sid) => this.drop(sid),
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) this.drop(transport.sessionId);
    };
    try {
      await connectWithDirectRequests(session.server, transport);
      await serveWeb((request, options) => transport.handleRequest(request, options), req, res, body);
    } finally {
      this.opening--;
      // Refused before it began (a missing Accept header, a bad protocol version): nothing else would close it.
      if (transport.sessionId === undefined) {
        this.count(owner, -1);
        await session.server.close().catch(() => {});
      }
    }
  }

  /** Adds `by` to the sessions `owner` has open or opening. */
  private count(owner: string | undefined, by: 1 | -1): void {
    if (owner === undefined) return;
    const open = (this.perClient.get(owner) ?? 0) + by;
    if (open > 0) this.perClient.set(owner, open);
    else this.perClient.delete(owner);
  }

  private drop(id: string): void {
    const entry = this.sessions.get(id);
    if (entry === undefined) return;
    entry.idle?.cancel();
    this.sessions.delete(id);
    this.count(entry.owner, -1);
    void entry.transport.close().catch(() => {});
  }

  private touch(id: string, entry: HttpSession): void {
    entry.idle?.cancel();
    entry.idle = this.deps.timers.after(this.settings.idleMs, () => this.drop(id), { background: true });
  }

  /**
   * A POST whose response closes before it is finished: the client went away, so its calls stop, as
   * if it had sent notifications/cancelled for each (the SDK then aborts their handlers' signals).
   */
  private stopWhenGone(
    transport: WebStandardStreamableHTTPServerTransport,
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
  ): void {
    if (req.method !== 'POST') return;
    const ids = (Array.isArray(body) ? body : [body]).flatMap((message: { id?: unknown; method?: unknown } | null) =>
      message?.method === 'tools/call' && (typeof message.id === 'string' || typeof message.id === 'number')
        ? [message.id]
        : [],
    );
    if (ids.length === 0) return;
    res.on('close', () => {
      if (res.writableFinished) return;
      for (const requestId of ids) {
        transport.onmessage?.({
          jsonrpc: '2.0',
          method: 'notifications/cancelled',
          params: { requestId, reason: 'The MCP client went away before the call finished.' },
        });
      }
    });
  }

  /** Why the Host or Origin header is refused (DNS-rebinding protection), or undefined. */
  private refusal(req: IncomingMessage): string | undefined {
    const hostRefused = hostRefusal(req, this.settings.server.allowedHosts, 'add it to http.allowedHosts');
    if (hostRefused !== undefined) return hostRefused;
    const { allowedOrigins } = this.settings;
    const origin = req.headers.origin;
    if (origin === undefined) return undefined;
    if (
      allowedOrigins !== undefined
        ? !allowedOrigins.includes(origin)
        : boundToLoopback(req) && !isLoopbackOrigin(origin)
    ) {
      return `Origin ${JSON.stringify(origin)} is not allowed here (DNS-rebinding protection); add it to http.allowedOrigins if it is yours.`;
    }
    return undefined;
  }
}

/** Serves `handle` at `path` on a new `http.Server` bound to `host:port`; resolves to it and its URL. */
export async function listenHttp(
  handle: McpRequestHandler,
  host: string,
  port: number,
  path: string,
  limits: HttpServerSettings,
): Promise<{ server: HttpServer; url: string }> {
  const server = limitedServer((req, res) => {
    // A target that does not parse (`//[`) is not the endpoint either: a request must never throw out of this listener.
    if (!URL.canParse(req.url ?? '/', 'http://x') || new URL(req.url ?? '/', 'http://x').pathname !== path)
      return reject(res, 404, `Not found: the MCP endpoint is ${path}.`);
    void handle(req, res);
  }, limits);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port: bound } = server.address() as AddressInfo;
  return { server, url: `http://${host.includes(':') ? `[${host}]` : host}:${bound}${path}` };
}

const NO_BODY = Symbol('no body');

/**
 * The JSON body, at most `max` bytes; answers 413 or 400 itself (and gives NO_BODY) when it is not. With
 * `budget`, its bytes are counted against it while read, and a body that does not fit gets 503.
 */
async function readBody(
  req: IncomingMessage,
  res: ServerResponse,
  max: number,
  timers: Timers,
  budget?: BodyBudget,
): Promise<unknown> {
  const declared = Number(req.headers['content-length']);
  if (declared > max) {
    reject(res, 413, `The request body is over ${max} bytes, the most this server reads.`, -32000, timers);
    return NO_BODY;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req as AsyncIterable<Buffer>) {
      if (size + chunk.length > max || (budget !== undefined && !budget.take(chunk.length))) {
        const over = size + chunk.length > max;
        reject(
          res,
          over ? 413 : 503,
          over
            ? `The request body is over ${max} bytes, the most this server reads.`
            : 'Too many request bodies are being read at once; try again in a moment.',
          -32000,
          timers,
        );
        req.destroy();
        return NO_BODY;
      }
      size += chunk.length;
      chunks.push(chunk);
    }
  } finally {
    budget?.giveBack(size);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    reject(res, 400, 'Parse error: the request body is not JSON.', -32700);
    return NO_BODY;
  }
}

/**
 * A body a parser in front already read: an object as it is; text or bytes (express.text(), raw()) parsed
 * here, held to the same limit. Answers 413 or 400 itself (and gives NO_BODY) when it is not JSON.
 */
function parsedJson(res: ServerResponse, parsed: unknown, max: number): unknown {
  if (typeof parsed !== 'string' && !Buffer.isBuffer(parsed)) return parsed;
  if (Buffer.byteLength(parsed) > max) {
    reject(res, 413, `The request body is over ${max} bytes, the most this server reads.`);
    return NO_BODY;
  }
  try {
    return JSON.parse(parsed.toString('utf8'));
  } catch {
    reject(res, 400, 'Parse error: the request body is not JSON.', -32700);
    return NO_BODY;
  }
}

function ownerOf(req: IncomingMessage): string | undefined {
  return (req as IncomingMessage & { auth?: AuthInfo }).auth?.clientId;
}

/**
 * Answers an error; with `closeOn`, the connection is closed after it rather than read on (a body refused
 * unread), cut on those timers once the client had time to read the answer.
 */
/** The id of a single JSON-RPC request, for an error that answers it; null otherwise (JSON-RPC's rule). */
function requestIdOf(body: unknown): string | number | null {
  const id = (body as { id?: unknown } | null | undefined)?.id;
  return !Array.isArray(body) && (typeof id === 'string' || typeof id === 'number') ? id : null;
}

function reject(
  res: ServerResponse,
  status: number,
  message: string,
  code = -32000,
  closeOn?: Timers,
  id: string | number | null = null,
): void {
  if (res.headersSent) return void res.end();
  if (closeOn !== undefined && res.socket !== null) lingerAfterAnswer(res.socket, closeOn);
  res.writeHead(status, {
    'content-type': 'application/json',
    ...(closeOn !== undefined ? { connection: 'close' } : {}),
  });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id }));
}
