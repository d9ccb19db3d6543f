import {
  SdkError,
  SdkErrorCode,
  StreamableHTTPClientTransport,
  type CallToolResult,
  type Client,
  type McpSubscription,
  type Transport,
} from '@modelcontextprotocol/client';
import { delay, MAX_TIMER_MS, type Timer } from '../clock.js';
import { UnavailableError } from '../errors.js';
import { backoffDelay } from '../runner/transient.js';
import { CALL_RESULT, callFailure, isConnectionFailure, ResponseLost } from './adapt.js';
import type { CallInFlight, CallLinks } from './call-links.js';
import { ChildTransport } from './child-transport.js';
import { closeQuietly, describeFailure, listAll, openAttempt, type Opened } from './connection-attempt.js';
import type { ConnectionSettings, ConnectionState } from './connection-settings.js';
import type { MessageTooLarge } from './message-limit.js';
import { paramHeaders, type ParamHeader } from './param-headers.js';
import type { PinnedFetch } from './pinned-fetch.js';
import { answerInputRequired, isInputRequired, type CallParams, type InputRequired } from './input-required.js';
import { Conversations, type RunOf } from './conversations.js';

/** The SDK's largest request time-out; the runner's own time-out and the call's signal stop calls first. */
const NO_SDK_TIMEOUT = MAX_TIMER_MS;

/**
 * One server's connection, kept up on its own: it connects in the protocol era the server speaks
 * (2026-07-28, else the 2025-11-25 handshake), lists the tools, re-lists them on
 * `notifications/tools/list_changed` (a burst is listed once; on a 2026-07-28 server these come on the
 * `subscriptions/listen` stream it opens), and when the connection fails or drops
 * it reports no tools and tries again with exponential backoff and jitter, never more than
 * `maxDelayMs` (60 s at most) apart. Each attempt builds a fresh transport; the one before is closed
 * first (a stdio server's process is ended and reaped).
 *
 * A call goes out once on the current connection. While a connection attempt is under way a call waits
 * for it; while the server is down it fails at once with `UnavailableError` (nothing was sent).
 */
export class ServerConnection {
  private state: ConnectionState = 'connecting';
  private client: Client | undefined;
  private transport: Transport | undefined;
  private fetcher: PinnedFetch | undefined;
  /** Which call the connection's questions belong to (see `CallLinks`); one per client, as request ids are. */
  private links: CallLinks | undefined;
  /** The server ended the era probe by exiting: it is connected to with the 2025-11-25 handshake only. */
  private legacyOnly = false;
  /** The `subscriptions/listen` stream of a 2026-07-28 connection. */
  private subscription: McpSubscription | undefined;
  /** Increases with each attempt and on close: callbacks of an older connection are ignored. */
  private generation = 0;
  private failures = 0;
  private retryTimer: Timer | undefined;
  private listTimer: Timer | undefined;
  private connecting: Promise<void> | undefined;
  private listing: Promise<void> | undefined;
  private relist = false;
  private readonly conversations = new Conversations();
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
    return this.lastError === undefined || this.state === 'connected'
      ? { state: this.state }
      : { state: this.state, error: this.lastError };
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
   * Calls a tool once and reads its result with `read`. Rejects with `UnavailableError` for transient
   * failures, a plain Error for the server's refusal. `during` is the Wardrik call it is, which the
   * server's questions meanwhile may belong to; `headers`, the arguments it mirrors into HTTP headers
   * (SEP-2243); `caller`, the agent and run it is for, whose conversation with a 2026-07-28 server it
   * continues (see `Conversations`). Not an async function: on every MCP call's path, its
   * frame would cost more than the rest of this method.
   */
  callTool<T>(
    name: string,
    args: unknown,
    signal: AbortSignal,
    read: (result: CallToolResult) => T,
    repeatable = true,
    during?: CallInFlight,
    headers?: readonly ParamHeader[],
    caller?: RunOf,
  ): Promise<T> {
    if (this.state === 'connecting' && this.connecting !== undefined) {
      return untilSettledOrAborted(this.connecting, signal).then(() =>
        this.send(name, args, signal, read, repeatable, during, headers, caller),
      );
    }
    return this.send(name, args, signal, read, repeatable, during, headers, caller);
  }

  private send<T>(
    name: string,
    args: unknown,
    signal: AbortSignal,
    read: (result: CallToolResult) => T,
    repeatable: boolean,
    during: CallInFlight | undefined,
    headers: readonly ParamHeader[] | undefined,
    caller: RunOf | undefined,
  ): Promise<T> {
    if (signal.aborted) return Promise.reject(signal.reason);
    const client = this.client;
    const generation = this.generation;
    if (client === undefined || this.state !== 'connected') {
      return Promise.reject(
        new UnavailableError(
          `${this.where} is not connected${this.lastError === undefined ? '' : ` (${this.lastError})`}; the call was not sent. Wardrik is reconnecting; try again later.`,
        ),
      );
    }
    const links = this.links;
    // Arguments a tool marks `x-mcp-header` go in `Mcp-Param-*` headers too, to a 2026-07-28 server over HTTP.
    const mirrored =
      headers !== undefined && links?.modern === true && this.fetcher !== undefined
        ? paramHeaders(headers, args)
        : undefined;
    // A lost answer (see CallLinks) stops the SDK's request with this signal; only over HTTP can one be lost.
    const lost = links !== undefined && this.fetcher !== undefined ? new AbortController() : undefined;
    const stopped = lost === undefined ? undefined : (): void => lost.abort(signal.reason);
    if (stopped !== undefined) signal.addEventListener('abort', stopped, { once: true });
    const callSignal = lost === undefined ? signal : lost.signal;
    // CALL_RESULT stands in for the SDK's zod schema (see there). `allowInputRequired`: a 2026-07-28 server's
    // questions come back as the call's result, answered below (the SDK's own fulfilment is off).
    const request = (params: CallParams): Promise<CallToolResult | InputRequired> =>
      client.request({ method: 'tools/call', params }, CALL_RESULT, {
        signal: callSignal,
        // The runner's time-out (the server's timeoutMs, as the tool's `timeout`) aborts `signal`, which
        // sends the cancellation; the SDK's own 60 s timer must not fire first.
        timeout: NO_SDK_TIMEOUT,
        allowInputRequired: true,
        ...(mirrored === undefined ? {} : { headers: mirrored }),
      }) as Promise<CallToolResult | InputRequired>;
    const onLost = lost === undefined ? undefined : () => lost.abort(new ResponseLost(LOST));
    const once = (params: CallParams): Promise<CallToolResult | InputRequired> =>
      links === undefined ? request(params) : links.sending(during, () => request(params), onLost);
    const conversation = links?.modern === true ? this.conversations.meta(caller) : undefined;
    let first: CallParams = {
      name,
      arguments: args as Record<string, unknown>,
      ...(conversation === undefined ? {} : { _meta: conversation }),
    };
    return once(first)
      .catch((error: unknown) => {
        // Guard (unknown-conversation-new): a token the server no longer knows starts a new conversation, never fails each call.
        if (!this.conversations.refused(caller, first, error)) throw error;
        first = { name, arguments: args as Record<string, unknown> }; // a new conversation there
        return once(first);
      })
      .then((result) =>
        isInputRequired(result)
          ? answerInputRequired(result, {
              params: first,
              send: once,
              ask: this.settings.elicitation,
              link: { call: during, candidates: [] },
              signal,
              timers: this.settings.timers,
            })
          : result,
      )
      .then((result) => {
        // Guard (hub-run-conversation): a run's next call continues its conversation at a 2026-07-28 Wardrik server, so labels gate there too.
        if (links?.modern === true) this.conversations.remember(caller, result);
        return result;
      })
      .finally(() => {
        if (stopped !== undefined) signal.removeEventListener('abort', stopped);
      })
      .then(read, (error: unknown) => {
        // Stopped or timed out by the runner: the SDK has sent notifications/cancelled; the runner answers.
        if (signal.aborted) throw signal.reason ?? error;
        if (this.tooLarge?.generation === generation)
          throw tooLargeFailure(`${this.where} (tool "${name}")`, this.tooLarge.error);
        const cause = lost?.signal.aborted === true ? (lost.signal.reason as ResponseLost) : error;
        const detail = this.transport instanceof ChildTransport ? this.transport.exit : undefined;
        const failure = callFailure(cause, `${this.where} (tool "${name}")`, detail, repeatable);
        if (isConnectionFailure(cause)) this.dropped(generation, (cause as Error)?.message ?? String(cause));
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
    await Promise.all([
      this.release(options.polite === true),
      opening === undefined ? undefined : closeQuietly(opening.client, opening.transport, opening.fetcher),
    ]);
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
      client.setNotificationHandler('notifications/tools/list_changed', () => this.scheduleList(generation));
      client.onclose = () =>
        this.dropped(
          generation,
          (transport instanceof ChildTransport ? transport.exit : undefined) ?? 'the connection closed',
        );
      await client.connect(transport, {
        timeout: this.settings.timing.connectTimeoutMs,
        ...(this.legacyOnly ? { prior: { kind: 'legacy' as const } } : {}),
      });
      if (generation !== this.generation) throw new Stale();
      this.client = client;
      this.transport = transport;
      this.fetcher = opened.fetcher;
      this.links = opened.links;
      if (client.getProtocolEra() === 'modern') {
        opened.links.modern = true;
        this.subscription = await this.listen(client, generation);
      }
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
      if (opened !== undefined && this.client !== opened.client)
        await closeQuietly(opened.client, opened.transport, opened.fetcher);
      if (error instanceof Stale || generation !== this.generation) return;
      const exit = opened?.transport instanceof ChildTransport ? opened.transport.exit : undefined;
      // A stdio server that exits on the probe (as servers built on the Rust SDK exit on any request
      // before `initialize`) speaks 2025-11-25: it is started again at once, straight to the handshake.
      if (
        !this.legacyOnly &&
        exit !== undefined &&
        error instanceof SdkError &&
        error.code === SdkErrorCode.EraNegotiationFailed
      ) {
        this.legacyOnly = true;
        await this.release(false);
        // Not a background timer: with the old process gone, it may be all that keeps a starting app alive.
        this.retryTimer = this.settings.timers.after(0, () => void this.connectNow());
        return;
      }
      await this.release(false);
      this.fail(describeFailure(this.tooLarge?.generation === generation ? this.tooLarge.error : error, exit));
    }
  }

  /**
   * Opens the `subscriptions/listen` stream of a 2026-07-28 server that announces tool list changes: the
   * one channel it sends `notifications/tools/list_changed` on. When the stream ends unasked, changes may
   * have been missed, so the connection is treated as dropped: it reconnects, re-lists and listens again.
   */
  private async listen(client: Client, generation: number): Promise<McpSubscription | undefined> {
    if (client.getServerCapabilities()?.tools?.listChanged !== true) return undefined;
    const subscription = await client.listen(
      { toolsListChanged: true },
      { timeout: this.settings.timing.connectTimeoutMs },
    );
    void subscription.closed.then((how) => {
      if (how !== 'local') this.dropped(generation, `the server ended its subscriptions/listen stream (${how})`);
    });
    return subscription;
  }

  /** Builds a client and a transport for one attempt; past the message limit, the attempt or connection ends. */
  private open(generation: number): Promise<Opened> {
    // Past the limit the transport stops reading and the connection is dropped, so no call waits on it.
    const onTooLarge = (error: MessageTooLarge): void => {
      if (generation !== this.generation) return;
      this.tooLarge = { generation, error };
      if (this.state === 'connected') this.dropped(generation, error.message);
      else void this.opening?.client.close().catch(() => {}); // the attempt fails with this error
    };
    return openAttempt(this.settings, this.where, onTooLarge);
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
    this.listTimer = this.settings.timers.after(
      this.settings.timing.listDebounceMs,
      () => void this.relistNow(generation),
      { background: true },
    );
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
    const { client, transport, fetcher, subscription } = this;
    this.client = undefined;
    this.transport = undefined;
    this.fetcher = undefined;
    this.links = undefined;
    this.subscription = undefined;
    await subscription?.close().catch(() => {});
    if (client === undefined || transport === undefined) return;
    if (polite && transport instanceof StreamableHTTPClientTransport) {
      // Tell the server the session is over, without letting a slow server hold the close up.
      await Promise.race([
        transport.terminateSession().catch(() => {}),
        delay(this.settings.timers, 1_000, undefined, { background: true }),
      ]);
    }
    await closeQuietly(client, transport, fetcher);
  }
}

class Stale extends Error {}

const LOST =
  'the stream carrying it ended before the answer came, and cannot be resumed (under 2026-07-28, SEP-2575, never)';

/** What a call dropped because the server passed the message limit answers: not transient, never retried. */
function tooLargeFailure(where: string, error: MessageTooLarge): Error {
  return new Error(
    `${where} answered with a message too large to read: ${error.message}, so Wardrik closed the connection. The call may have run; ask for less (a smaller page or range), or raise maxMessageBytes.`,
    { cause: error },
  );
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
