import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ElicitRequestSchema,
  ToolListChangedNotificationSchema,
  type CallToolResult,
  type CallToolResultSchema,
  type ElicitRequest,
  type ElicitResult,
  type Tool as McpTool,
} from '@modelcontextprotocol/sdk/types.js';
import { delay, MAX_TIMER_MS, type Timer, type Timers } from '../clock.js';
import { Unavailable } from '../errors.js';
import { backoffDelay } from '../runner/transient.js';
import { CALL_RESULT, callFailure, isConnectionFailure } from './adapt.js';
import { CallLinks, type CallInFlight, type QuestionLink } from './call-links.js';
import { ChildTransport } from './child-transport.js';
import type { CredentialProvider } from './credentials.js';
import { EgressRefused, type EgressCheck, type ResolvedAddress } from './egress.js';
import { MessageTooLarge } from './message-limit.js';
import type { McpServerOptions } from './options.js';
import { TOOLS_PAGE } from './tool-listing.js';
import { pinnedFetch, type PinnedFetch } from './pinned-fetch.js';

/** Where a server's connection stands. */
export type ConnectionState = 'connecting' | 'connected' | 'down' | 'closed';

export interface ConnectionTiming {
  readonly connectTimeoutMs: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  readonly listDebounceMs: number;
  readonly random: () => number;
}

export interface ConnectionSettings {
  readonly hub: string;
  readonly server: string;
  readonly options: McpServerOptions;
  /** Added at runtime: the egress check applies. */
  readonly runtime: boolean;
  readonly check: EgressCheck | undefined;
  readonly credentials: CredentialProvider;
  /** Where reconnect backoff, re-listing and a polite close's wait are timed. */
  readonly timers: Timers;
  readonly timing: ConnectionTiming;
  /** The largest message read from the server (a stdio line, a JSON body, an SSE event), in bytes. */
  readonly maxMessageBytes: number;
  /** The server's tools after each listing (waited for, when a long one is adapted in slices); `undefined` when it went down. */
  readonly onTools: (tools: readonly McpTool[] | undefined) => void | Promise<void>;
  /** The connection went down (or the first attempt failed), and why; for a warning event. */
  readonly onDown: (reason: string, retryInMs: number) => void;
  /** For a server with OAuth: the SDK's auth provider for an attempt (throws while a person has yet to sign in). */
  readonly signIn?: () => Promise<OAuthClientProvider>;
  /** The server's questions: declined at once, or asked of a person; none offers no elicitation. */
  readonly elicitation?: 'decline' | ((params: ElicitRequest['params'], signal: AbortSignal, link: QuestionLink) => Promise<ElicitResult>);
}

/** The SDK's largest request time-out; the runner's own time-out and the call's signal stop calls first. */
const NO_SDK_TIMEOUT = MAX_TIMER_MS;

/**
 * One server's connection, kept up on its own: it connects, lists the tools, re-lists them on
 * `notifications/tools/list_changed` (a burst is listed once), and when the connection fails or drops
 * it reports no tools and tries again with exponential backoff and jitter, never more than
 * `maxDelayMs` (60 s at most) apart. Each attempt builds a fresh transport; the one before is closed
 * first (a stdio server's process is ended and reaped).
 *
 * A call goes out once on the current connection. While a connection attempt is under way a call waits
 * for it; while the server is down it fails at once with `Unavailable` (nothing was sent).
 */
export class ServerConnection {
  private state: ConnectionState = 'connecting';
  private client: Client | undefined;
  private transport: Transport | undefined;
  private fetcher: PinnedFetch | undefined;
  /** Which call the connection's questions belong to (see `CallLinks`); one per client, as request ids are. */
  private links: CallLinks | undefined;
  /** Increases with each attempt and on close: callbacks of an older connection are ignored. */
  private generation = 0;
  private failures = 0;
  private retryTimer: Timer | undefined;
  private listTimer: Timer | undefined;
  private connecting: Promise<void> | undefined;
  private listing: Promise<void> | undefined;
  private relist = false;
  private lastError: string | undefined;
  /** The server passed the message limit on this connection (its generation): the calls it drops say so. */
  private tooLarge: { readonly generation: number; readonly error: MessageTooLarge } | undefined;
  /** What the attempt under way opened, so `close()` can end it without waiting for it to time out. */
  private opening: Opened | undefined;
  private settleFirst!: () => void;
  /** Settles when the first connection attempt has succeeded or failed. */
  readonly firstAttempt: Promise<void> = new Promise((resolve) => {
    this.settleFirst = resolve;
  });

  constructor(private readonly settings: ConnectionSettings) {}

  private get where(): string {
    return `MCP server "${this.settings.server}"`;
  }

  get status(): { readonly state: ConnectionState; readonly error?: string } {
    return this.lastError === undefined || this.state === 'connected' ? { state: this.state } : { state: this.state, error: this.lastError };
  }

  /** The child's process id while a stdio server runs (for tests and diagnostics). */
  get pid(): number | undefined {
    return this.transport instanceof ChildTransport ? this.transport.pid : undefined;
  }

  start(): void {
    void this.connectNow();
  }

  /** Tries again now rather than at the next backoff, when the server is down (a person just signed in). */
  retryNow(): void {
    if (this.state === 'down') void this.connectNow();
  }

  /**
   * Calls a tool once and reads its result with `read`. Rejects with `Unavailable` for transient
   * failures, a plain Error for the server's refusal. `during` is the Wardrik call it is, which the
   * server's questions meanwhile may belong to. Not an async function: on every MCP call's path, its
   * frame would cost more than the rest of this method.
   */
  callTool<T>(name: string, args: unknown, signal: AbortSignal, read: (result: CallToolResult) => T, repeatable = true, during?: CallInFlight): Promise<T> {
    if (this.state === 'connecting' && this.connecting !== undefined) {
      return untilSettledOrAborted(this.connecting, signal).then(() => this.send(name, args, signal, read, repeatable, during));
    }
    return this.send(name, args, signal, read, repeatable, during);
  }

  private send<T>(name: string, args: unknown, signal: AbortSignal, read: (result: CallToolResult) => T, repeatable: boolean, during: CallInFlight | undefined): Promise<T> {
    if (signal.aborted) return Promise.reject(signal.reason);
    const client = this.client;
    const generation = this.generation;
    if (client === undefined || this.state !== 'connected') {
      return Promise.reject(
        new Unavailable(
          `${this.where} is not connected${this.lastError === undefined ? '' : ` (${this.lastError})`}; the call was not sent. Wardrik is reconnecting; try again later.`,
        ),
      );
    }
    // CALL_RESULT stands in for the SDK's zod schema (see there): the type admits only the SDK's own.
    const call = (): Promise<CallToolResult> =>
      client.callTool({ name, arguments: args as Record<string, unknown> }, CALL_RESULT as unknown as typeof CallToolResultSchema, {
        signal,
        // The runner's time-out (the server's timeoutMs, as the tool's `timeout`) aborts `signal`, which
        // sends the cancellation; the SDK's own 60 s timer must not fire first.
        timeout: NO_SDK_TIMEOUT,
      }) as Promise<CallToolResult>;
    const sent = during === undefined || this.links === undefined ? call() : this.links.sending(during, call);
    return sent.then(read, (error: unknown) => {
      // Stopped or timed out by the runner: the SDK has sent notifications/cancelled; the runner answers.
      if (signal.aborted) throw signal.reason ?? error;
      if (this.tooLarge?.generation === generation) throw tooLargeFailure(`${this.where} (tool "${name}")`, this.tooLarge.error);
      const detail = this.transport instanceof ChildTransport ? this.transport.exit : undefined;
      const failure = callFailure(error, `${this.where} (tool "${name}")`, detail, repeatable);
      if (isConnectionFailure(error)) this.dropped(generation, (error as Error)?.message ?? String(error));
      throw failure;
    });
  }

  /** Closes the connection for good: timers cleared, the transport closed, a stdio process reaped. */
  async close(options: { readonly polite?: boolean } = {}): Promise<void> {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.generation++;
    this.retryTimer?.cancel();
    this.listTimer?.cancel();
    const connecting = this.connecting;
    const opening = this.opening;
    await Promise.all([this.release(options.polite === true), opening === undefined ? undefined : closeQuietly(opening.client, opening.transport, opening.fetcher)]);
    // An attempt under way closes what it opened when it sees the generation changed.
    if (connecting !== undefined) await connecting.catch(() => {});
    this.settleFirst();
  }

  private connectNow(): Promise<void> {
    if (this.state === 'closed') return Promise.resolve();
    if (this.connecting !== undefined) return this.connecting;
    this.retryTimer?.cancel();
    this.retryTimer = undefined;
    this.state = 'connecting';
    const generation = ++this.generation;
    const attempt = this.attempt(generation).finally(() => {
      if (this.connecting === attempt) this.connecting = undefined;
    });
    this.connecting = attempt;
    return attempt;
  }

  private async attempt(generation: number): Promise<void> {
    let opened: Opened | undefined;
    try {
      opened = await this.open(generation);
      this.opening = opened;
      if (generation !== this.generation) throw new Stale();
      const { client, transport } = opened;
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.scheduleList(generation));
      client.onclose = () => this.dropped(generation, (transport instanceof ChildTransport ? transport.exit : undefined) ?? 'the connection closed');
      await client.connect(transport, { timeout: this.settings.timing.connectTimeoutMs });
      if (generation !== this.generation) throw new Stale();
      this.client = client;
      this.transport = transport;
      this.fetcher = opened.fetcher;
      this.links = opened.links;
      const tools = await listAll(client, this.settings.timing.connectTimeoutMs);
      if (generation !== this.generation) throw new Stale();
      this.state = 'connected';
      this.failures = 0;
      this.lastError = undefined;
      this.opening = undefined;
      await this.settings.onTools(tools);
      this.settleFirst();
    } catch (error) {
      this.opening = undefined;
      if (opened !== undefined && this.client !== opened.client) await closeQuietly(opened.client, opened.transport, opened.fetcher);
      if (error instanceof Stale || generation !== this.generation) return;
      const exit = opened?.transport instanceof ChildTransport ? opened.transport.exit : undefined;
      await this.release(false);
      this.fail(describeFailure(this.tooLarge?.generation === generation ? this.tooLarge.error : error, exit));
    }
  }

  /** Builds a client and a transport for one attempt: the egress check and the credential come first. */
  private async open(generation: number): Promise<Opened> {
    const { options, runtime, check, credentials, hub, server, maxMessageBytes, timers } = this.settings;
    // Past the limit the transport stops reading and the connection is dropped, so no call waits on it.
    const onTooLarge = (error: MessageTooLarge): void => {
      if (generation !== this.generation) return;
      this.tooLarge = { generation, error };
      if (this.state === 'connected') this.dropped(generation, error.message);
      else void this.opening?.client.close().catch(() => {}); // the attempt fails with this error
    };
    const secret = options.credential === undefined ? undefined : await credentials.resolve(options.credential, { hub, server });
    if (options.credential !== undefined && (secret === undefined || secret === '')) {
      throw new Error(`credential "${options.credential}" has no value (the credential provider found none; by default it reads the environment variable of that name)`);
    }
    const links = new CallLinks();
    const client = this.newClient(links);
    if ('stdio' in options.transport) {
      if (runtime && check !== undefined) {
        throw new EgressRefused(`${this.where} runs a command, which a hub with an egress check refuses for servers added at runtime; use an http transport.`);
      }
      const stdio = options.transport.stdio;
      const env: Record<string, string> = { ...getDefaultEnvironment(), ...stdio.env };
      if (options.credential !== undefined) env[options.credential] = secret!;
      const transport = new ChildTransport({ command: stdio.command, args: stdio.args ?? [], env, ...(stdio.cwd === undefined ? {} : { cwd: stdio.cwd }), maxMessageBytes, onTooLarge, timers });
      return { client, transport: noteSent(transport, links), fetcher: undefined, links };
    }
    const { url: text, headers } = options.transport.http;
    const url = new URL(text);
    let first: { url: URL; addresses: readonly ResolvedAddress[] | undefined } | undefined;
    const egress = runtime ? check : undefined;
    if (egress !== undefined) {
      let verdict;
      try {
        verdict = await egress(url);
      } catch (error) {
        throw new EgressRefused(`${url.origin} is refused: the egress check threw (${(error as Error).message}).`, { cause: error });
      }
      if (!verdict.ok) throw new EgressRefused(verdict.reason);
      first = { url, addresses: verdict.addresses };
    }
    // Its own sockets, closed with the connection (and pinned to the checked address under a check).
    const fetcher = pinnedFetch(egress, first, { maxBytes: maxMessageBytes, onTooLarge, relate: (events, body) => links.relate(events, body) });
    const requestHeaders: Record<string, string> = { ...headers };
    if (secret !== undefined) requestHeaders.authorization = `Bearer ${secret}`;
    // With OAuth, every discovery, registration and token request goes through the same fetch: checked.
    const authProvider = this.settings.signIn === undefined ? undefined : await this.settings.signIn();
    const transport = new StreamableHTTPClientTransport(url, {
      requestInit: { headers: requestHeaders },
      fetch: fetcher.fetch,
      ...(authProvider === undefined ? {} : { authProvider }),
    });
    return { client, transport: noteSent(transport, links), fetcher, links };
  }

  /** A client that offers elicitation (form and URL mode) when the server's option allows it; `links` says which call a question belongs to. */
  private newClient(links: CallLinks): Client {
    const elicitation = this.settings.elicitation;
    const client = new Client({ name: 'wardrik', version: '0.1.0' }, { capabilities: elicitation === undefined ? {} : { elicitation: { form: {}, url: {} } } });
    if (elicitation === 'decline') client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'decline' }));
    else if (elicitation !== undefined) client.setRequestHandler(ElicitRequestSchema, (request, extra) => elicitation(request.params, extra.signal, links.linkOf(extra.requestId)));
    return client;
  }

  /** The connection dropped (the process died, the socket failed): no tools until it is back. */
  private dropped(generation: number, why: string): void {
    if (generation !== this.generation || this.state !== 'connected') return;
    this.generation++;
    void this.release(false).then(() => this.fail(`the connection dropped: ${why}`));
    this.state = 'down';
  }

  private fail(reason: string): void {
    if (this.state === 'closed') return;
    this.state = 'down';
    this.lastError = reason;
    this.failures++;
    const retryInMs = this.backoff(this.failures);
    void this.settings.onTools(undefined);
    this.settings.onDown(reason, retryInMs);
    this.settleFirst();
    this.retryTimer?.cancel();
    this.retryTimer = this.settings.timers.after(retryInMs, () => void this.connectNow(), { background: true });
  }

  private backoff(failures: number): number {
    const { baseDelayMs, maxDelayMs, random } = this.settings.timing;
    return backoffDelay(failures, baseDelayMs, maxDelayMs, random);
  }

  private scheduleList(generation: number): void {
    if (generation !== this.generation) return;
    this.listTimer?.cancel();
    this.listTimer = this.settings.timers.after(this.settings.timing.listDebounceMs, () => void this.relistNow(generation), { background: true });
  }

  /** Lists the tools again; one listing at a time, and one more if a notification came during it. */
  private relistNow(generation: number): Promise<void> {
    if (this.listing !== undefined) {
      this.relist = true;
      return this.listing;
    }
    const listing = (async () => {
      do {
        this.relist = false;
        const client = this.client;
        if (generation !== this.generation || client === undefined) return;
        try {
          const tools = await listAll(client, this.settings.timing.connectTimeoutMs);
          if (generation !== this.generation) return;
          await this.settings.onTools(tools);
        } catch (error) {
          if (generation !== this.generation) return;
          // The connection may be gone (its close handler takes over), or only the listing failed.
          if (isConnectionFailure(error)) this.dropped(generation, (error as Error).message);
          return;
        }
      } while (this.relist);
    })().finally(() => {
      this.listing = undefined;
    });
    this.listing = listing;
    return listing;
  }

  /** Closes the current client and transport, if any. */
  private async release(polite: boolean): Promise<void> {
    const { client, transport, fetcher } = this;
    this.client = undefined;
    this.transport = undefined;
    this.fetcher = undefined;
    this.links = undefined;
    if (client === undefined || transport === undefined) return;
    if (polite && transport instanceof StreamableHTTPClientTransport) {
      // Tell the server the session is over, without letting a slow server hold the close up.
      await Promise.race([transport.terminateSession().catch(() => {}), delay(this.settings.timers, 1_000, undefined, { background: true })]);
    }
    await closeQuietly(client, transport, fetcher);
  }
}

class Stale extends Error {}

/** What one connection attempt opened. */
interface Opened {
  readonly client: Client;
  readonly transport: Transport;
  readonly fetcher: PinnedFetch | undefined;
  readonly links: CallLinks;
}

/** The transport, with each message it sends shown to `links` first (a call's request id is learnt there). */
function noteSent<T extends Transport>(transport: T, links: CallLinks): T {
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    links.sent(message);
    return send(message, options);
  };
  return transport;
}

/** What a call dropped because the server passed the message limit answers: not transient, never retried. */
function tooLargeFailure(where: string, error: MessageTooLarge): Error {
  return new Error(
    `${where} answered with a message too large to read: ${error.message}, so Wardrik closed the connection. The call may have run; ask for less (a smaller page or range), or raise maxMessageBytes.`,
    { cause: error },
  );
}

async function listAll(client: Client, timeoutMs: number): Promise<McpTool[]> {
  const tools: McpTool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    // Not client.listTools(): see TOOLS_PAGE for what it costs with a hostile server.
    const result = await client.request({ method: 'tools/list', ...(cursor === undefined ? {} : { params: { cursor } }) }, TOOLS_PAGE, { timeout: timeoutMs });
    tools.push(...result.tools);
    cursor = result.nextCursor;
    if (cursor === undefined) break;
  }
  return tools;
}

async function closeQuietly(client: Client, transport: Transport, fetcher: PinnedFetch | undefined): Promise<void> {
  try {
    await client.close();
  } catch {
    // already closed
  }
  try {
    await transport.close();
  } catch {
    // already closed
  }
  fetcher?.close();
}

function describeFailure(error: unknown, exit: string | undefined): string {
  const message = error instanceof Error ? error.message : String(error);
  return exit === undefined ? message : `${message} (${exit})`;
}

/** Waits for `promise` to settle, or for `signal` to abort, whichever is first. */
function untilSettledOrAborted(promise: Promise<unknown>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      signal.removeEventListener('abort', done);
      resolve();
    };
    signal.addEventListener('abort', done, { once: true });
    promise.then(done, done);
  });
}
