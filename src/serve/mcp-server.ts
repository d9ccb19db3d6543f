import type { Server as HttpServer } from 'node:http';
import type { Transport } from '@modelcontextprotocol/server';
import type { Clock, Timers } from '../clock.js';
import { ConfigurationError } from '../errors.js';
import { clippedWarnings } from './clipped-warnings.js';
import { MAX_MESSAGE_BYTES } from '../mcp/message-limit.js';
import type { Inbox } from '../inbox/inbox.js';
import type { ToolRunner } from '../runner/tool-runner.js';
import type { Store } from '../store/store.js';
import type { Policy } from '../policy/policy.js';
import type { ToolCatalog } from '../tools/catalog.js';
import { createMcpHandler, type McpHttpHandler, type Server as ModernServer } from '@modelcontextprotocol/server';
import { serveStdio, type StdioServerHandle } from '@modelcontextprotocol/server/stdio';
import { newRunId } from '../run-ids.js';
import { connectWithDirectRequests } from './direct-requests.js';
import { withDirectEnvelopedRequests } from './direct-enveloped-requests.js';
import { DirectWire } from './direct-wire.js';
import { connectByEra, nodeRequests } from './eras.js';
import { HttpSessions, listenHttp, type McpRequestHandler } from './http.js';
import { SealedTokens } from './sealed.js';
import { StatelessServing } from './stateless.js';
import { ServedTools } from './naming.js';
import { ServedSearch } from './served-search.js';
import { serverSettings, type ServeOptions, type ServeSettings } from './options.js';
import { ServeSession, type SessionDeps } from './session.js';
import { StdioLines } from './stdio-lines.js';
import { ServeTaskStore } from './tasks.js';

/** What a server needs from its Wardrik. */
export interface McpServerDeps {
  readonly runner: ToolRunner;
  readonly store: Store;
  readonly inbox: Inbox;
  readonly catalog: ToolCatalog;
  /** Decides which tools each caller is listed and found (a tool its policy denies never is). */
  readonly policy: Policy;
  /** Where waits for a person's answer, idle sessions and held wrong guesses read the time and set timers. */
  readonly clock: Clock;
  readonly timers: Timers;
  /** The labels the policy counts as confidential. */
  readonly confidential: ReadonlySet<string>;
  /** Reports a problem a developer should see (a `warning` event). */
  readonly warn: (message: string) => void;
}

/** Where `listen` binds: 127.0.0.1, a port the system picks, at `/mcp`, unless told. */
export interface ListenOptions {
  readonly host?: string;
  readonly port?: number;
  readonly path?: string;
}

/**
 * Wardrik as an MCP server (`wardrik.mcpServer(options)`): the chosen tools, served over Streamable
 * HTTP (`listen`, or `handler()` mounted in an app) and any SDK server transport, stdio included
 * (`connect`), to clients of both protocol eras on the same URL or connection:
 * - 2025-11-25 (`initialize`, sessions): each session is its own run, on SDK v2's `Server` and session transport;
 * - 2026-07-28 (stateless, per-request envelope): SDK v2, see `StatelessServing`.
 * Every call goes through the runner. The served list follows the catalog: each session is sent
 * `notifications/tools/list_changed` when it changes, and each open `subscriptions/listen` stream too.
 */
export class WardrikMcpServer {
  private readonly settings: ServeSettings;
  private readonly served: ServedTools;
  private readonly search: ServedSearch;
  private readonly sessions = new Set<ServeSession>();
  private readonly unwatch: () => void;
  private http: HttpSessions | undefined;
  private readonly stateless: StatelessServing;
  private modernHttp: McpHttpHandler | undefined;
  /** 2026-07-28 connections over stdio (or another transport), and their pinned servers. */
  private readonly modernConnections = new Set<StdioServerHandle>();
  private readonly modernServers = new Set<ModernServer>();
  private readonly listening: HttpServer[] = [];
  private announcing = false;
  private closed = false;

  private readonly deps: McpServerDeps;

  /** @internal */
  constructor(deps: McpServerDeps, options: ServeOptions) {
    // Guard (warnings-bounded): what a client sent reaches the log only in part, however large it was.
    this.deps = { ...deps, warn: clippedWarnings(deps.warn) };
    this.settings = serverSettings(options);
    this.served = new ServedTools(this.deps.catalog, this.settings, this.deps.warn);
    this.search = new ServedSearch(this.served, this.deps.policy, this.settings.policy);
    this.unwatch = this.deps.catalog.onChange(() => this.catalogChanged());
    this.stateless = new StatelessServing(this.sessionDeps(undefined), new SealedTokens(this.settings.stateKey));
  }

  /**
   * Serves one client over `transport` (any SDK server transport) as its own session; without one,
   * over this process's stdin and stdout (MCP's stdio transport, as `wardrik serve --stdio` does; a
   * message over 16 MiB closes it). No HTTP checks apply: the transport is trusted to reach only who
   * should call.
   */
  async connect(
    transport: Transport = new StdioLines(process.stdin, process.stdout, MAX_MESSAGE_BYTES),
  ): Promise<void> {
    this.assertOpen();
    await connectByEra(
      transport,
      async (legacy) => {
        const session = this.open();
        if (legacy.sessionId !== undefined) session.run = legacy.sessionId;
        session.overStdio = transport instanceof StdioLines;
        // What the connection reports (a line that is not JSON-RPC, a message over the limit that closes
        // it) reaches the developer: without this, the SDK's Server drops it and a closed connection says nothing.
        session.server.onerror = (error) => this.deps.warn(`The MCP connection reported: ${error.message}`);
        await connectWithDirectRequests(session.server, legacy);
      },
      async (modern) => {
        // The connection is the conversation: calls without a conversation token share its run.
        const run = modern.sessionId ?? newRunId();
        const wire = new DirectWire(modern);
        const handle = serveStdio(
          () => {
            const server = withDirectEnvelopedRequests(
              this.stateless.server({ run, ...(transport instanceof StdioLines ? { over: 'stdio' } : {}) }),
              (channel) => wire.follow(channel),
            );
            this.modernServers.add(server);
            const closing = server.onclose;
            server.onclose = () => {
              closing?.();
              this.modernServers.delete(server);
            };
            return server;
          },
          {
            legacy: 'reject',
            transport: wire as unknown as NonNullable<Parameters<typeof serveStdio>[1]>['transport'],
            onerror: (error) => this.deps.warn(`The MCP connection reported: ${error.message}`),
          },
        );
        this.modernConnections.add(handle);
        const closed = modern.onclose;
        modern.onclose = () => {
          closed?.();
          this.modernConnections.delete(handle);
        };
      },
      this.deps.warn,
    );
  }

  /**
   * A Node request handler for Streamable HTTP, to mount in an app (`app.all('/mcp', handler)`).
   * Throws a ConfigurationError unless `authenticate` was given (or set to `false` deliberately).
   */
  handler(): McpRequestHandler {
    this.assertOpen();
    const { authenticate } = this.settings;
    if (authenticate === undefined) {
      throw new ConfigurationError(
        'mcpServer over HTTP needs authenticate: { verifier } to check bearer tokens, or authenticate: false to serve without them (only behind something that does, or on loopback for one user).',
      );
    }
    this.http ??= new HttpSessions(
      this.settings,
      () => this.open(),
      () => this.modernHandler(),
      authenticate,
      this.deps,
    );
    return this.http.handle;
  }

  /** Serves Streamable HTTP on its own `http.Server`; resolves to the endpoint's URL. */
  async listen(options: ListenOptions = {}): Promise<string> {
    const { host = '127.0.0.1', port = 0, path = '/mcp' } = options;
    if (!path.startsWith('/'))
      throw new ConfigurationError(`listen: path starts with "/", such as "/mcp"; got ${JSON.stringify(path)}.`);
    const { server, url } = await listenHttp(this.handler(), host, port, path, this.settings.server);
    this.listening.push(server);
    return url;
  }

  /** @internal Answers to wrong bearer tokens held now. */
  get heldGuesses(): number {
    return this.http?.heldGuesses ?? 0;
  }

  /** @internal Bytes of bodies read without a token to vouch for them, held now. */
  get unauthenticatedBytes(): number {
    return this.http?.budget.inUse ?? 0;
  }

  /** Closes every session (their calls stop), the HTTP servers it listens on, and stops following the catalog. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.unwatch();
    await this.http?.close();
    await this.modernHttp?.close();
    await Promise.all([...this.modernConnections].map((handle) => handle.close().catch(() => {})));
    this.modernConnections.clear();
    await this.stateless.close();
    await Promise.all([...this.sessions].map((session) => session.server.close().catch(() => {})));
    this.sessions.clear();
    await Promise.all(
      this.listening.map(
        (server) =>
          new Promise<void>((resolve) => {
            server.closeAllConnections();
            server.close(() => resolve());
          }),
      ),
    );
  }

  /** The 2026-07-28 HTTP handler: a fresh v2 server for each request (they are stateless). */
  private modernHandler(): McpHttpHandler {
    this.modernHttp ??= createMcpHandler(
      (context) => {
        const request = context.requestInfo === undefined ? undefined : nodeRequests.get(context.requestInfo);
        return this.stateless.server(request === undefined ? { over: 'http' } : { request, over: 'http' });
      },
      {
        legacy: 'reject',
        maxRequestBodySize: this.settings.maxBodyBytes,
        onerror: (error) => this.deps.warn(`An MCP request was refused or failed: ${error.message}`),
      },
    );
    return this.modernHttp;
  }

  private sessionDeps(tasks: ServeTaskStore | undefined): SessionDeps {
    return {
      runner: this.deps.runner,
      store: this.deps.store,
      inbox: this.deps.inbox,
      clock: this.deps.clock,
      timers: this.deps.timers,
      served: this.served,
      search: this.search,
      settings: this.settings,
      confidential: this.deps.confidential,
      ...(tasks === undefined ? {} : { tasks }),
      warn: this.deps.warn,
    };
  }

  private open(): ServeSession {
    // Tasks per session: sessions without a transport session id (stdio, connect()) would otherwise all
    // see, in one shared store, every other's tasks and their results.
    const tasks = new ServeTaskStore(this.deps.clock, this.deps.timers);
    const session = new ServeSession(this.sessionDeps(tasks));
    this.sessions.add(session);
    const closing = session.server.onclose;
    session.server.onclose = () => {
      closing?.();
      tasks.close();
      this.sessions.delete(session);
    };
    return session;
  }

  /** Several changes at once (a hub reconnecting) make one announcement, after they are all made. */
  private catalogChanged(): void {
    if (this.announcing || this.closed) return;
    this.announcing = true;
    setImmediate(() => {
      this.announcing = false;
      if (this.closed || !this.served.refresh()) return;
      for (const session of this.sessions) session.server.sendToolListChanged().catch(() => {});
      this.modernHttp?.notify.toolsChanged();
      for (const server of this.modernServers) server.sendToolListChanged().catch(() => {});
    });
  }

  private assertOpen(): void {
    if (this.closed)
      throw new ConfigurationError('This MCP server is closed; make a new one with wardrik.mcpServer(options).');
  }
}
