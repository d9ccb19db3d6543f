import type { Tool as McpTool } from '@modelcontextprotocol/client';
import { every, type Timer } from '../clock.js';
import { ClosedError, ConfigurationError, ConflictError, NotFoundError } from '../errors.js';
import { MemoryStore } from '../store/memory-store.js';
import type { CatalogEntry } from '../tools/catalog.js';
import type { CapabilityContext, CapabilityProvider } from './capability.js';
import { ServerConnection } from './connection.js';
import { DefinitionPins } from './definition-pins.js';
import { Questions } from './questions.js';
import { SignIns } from './sign-ins.js';
import { admitRuntime } from './egress.js';
import { ServerTools, type AdaptedListing } from './server-tools.js';
import { hubSettings, type HubSettings } from './hub-settings.js';
import { storedServerVerdict } from './stored-servers.js';
import {
  credentialRefusal,
  httpUrlOf,
  MCP_DEFAULTS,
  serverDefinition,
  type McpHubOptions,
  type McpServerOptions,
} from './options.js';

export { toolsetClaims, type ToolsetClaims } from './toolset-claims.js';

import { loadTraceContext } from './trace-context.js';
import type { McpHubServices, McpServerStatus, McpToolsOptions, ServerEntry } from './hub-types.js';
export type { McpHubServices, McpServerStatus, McpToolsOptions } from './hub-types.js';

/**
 * Gives agents the tools of MCP servers, as Wardrik tools in the catalog under the server's name
 * (`github__search_issues` for the model, `github/search_issues` for policies), so every call goes
 * through the runner like any other tool's.
 *
 * Lifecycle: servers are known from construction (configured) and from the store (runtime); `start()`
 * connects them all, each on its own, and waits at most `waitMs` for the first attempts; `close()`
 * closes every connection and timer. `add`, `remove` and `reconcile` run one at a time, in call order.
 */
export class McpHub implements CapabilityProvider<McpToolsOptions> {
  readonly name: string;
  private readonly entries = new Map<string, ServerEntry>();
  /** The options, checked, with defaults. */
  private readonly settings: HubSettings;
  private readonly pins: DefinitionPins;
  private readonly questions: Questions;
  private readonly signIns: SignIns;
  private queue: Promise<unknown> = Promise.resolve();
  private reconcileTimer: Timer | undefined;
  private closed = false;

  /** @internal */
  constructor(
    options: McpHubOptions,
    private readonly services: McpHubServices,
  ) {
    const settings = hubSettings(options);
    this.settings = settings;
    this.name = settings.name;
    // Pinned tool definitions are shared through the store; with none, this process keeps them.
    const store = services.store ?? new MemoryStore();
    this.pins = new DefinitionPins(this.name, store, services.events, services.clock);
    const waitMs = settings.elicitationWaitMs;
    const { redirectUrl, keyCredential = 'WARDRIK_OAUTH_KEY' } = options.oauth ?? {};
    this.signIns = new SignIns(
      {
        hub: this.name,
        store,
        events: services.events,
        clock: services.clock,
        credentials: services.credentials,
        keyCredential,
        redirectUrl,
      },
      this.settings.check,
    );
    this.questions = new Questions({
      hub: this.name,
      store,
      events: services.events,
      clock: services.clock,
      timers: services.timers,
      waitMs,
      pollMs: Math.min(waitMs, MCP_DEFAULTS.questionPollMs),
    });
  }

  /** @internal Claims the configured servers' names, connects every server, and waits at most `waitMs` for first attempts. */
  async start(): Promise<void> {
    for (const name of this.settings.configured.keys()) {
      const other = this.services.claims.claim(name, this.owner);
      if (other !== undefined)
        throw new ConfigurationError(
          `MCP server "${name}" of hub "${this.name}" has the name of ${other}; toolset names must be unique, so rename one.`,
        );
    }
    await loadTraceContext(); // before any request: each carries the current span's `traceparent`
    for (const [name, options] of this.settings.configured) this.open(name, options, false, 0);
    if (this.services.store !== undefined) {
      try {
        await this.reconcile();
      } catch (error) {
        this.warn(
          `MCP hub "${this.name}" could not read its runtime servers from the store: ${(error as Error).message}. It tries again every reconcile.`,
        );
      }
      if (this.settings.reconcileMs !== Infinity) {
        this.reconcileTimer = every(
          this.services.timers,
          this.settings.reconcileMs,
          () => {
            this.reconcile().catch((error: unknown) =>
              this.warn(`MCP hub "${this.name}" could not reconcile with the store: ${(error as Error).message}.`),
            );
          },
          { background: true },
        );
      }
    }
    if (this.settings.waitMs > 0) {
      let timer: Timer | undefined;
      await Promise.race([
        Promise.all([...this.entries.values()].map((entry) => entry.connection.firstAttempt)),
        new Promise<void>((resolve) => {
          timer = this.services.timers.after(this.settings.waitMs, resolve, { background: true });
        }),
      ]);
      timer?.cancel();
    }
  }

  /** The names of every server, configured and runtime, sorted. */
  servers(): string[] {
    return [...this.entries.keys()].sort();
  }

  /** Each server's state and tool count, sorted by name. */
  status(): McpServerStatus[] {
    return this.servers().map((name) => {
      const entry = this.entries.get(name)!;
      const { state, error } = entry.connection.status;
      return {
        name,
        runtime: entry.runtime,
        state,
        tools: entry.count ?? 0,
        ...(error === undefined ? {} : { error }),
      };
    });
  }

  /** @internal The running process id of a stdio server, for diagnostics; undefined for HTTP or while it is down. */
  pid(name: string): number | undefined {
    return this.entries.get(name)?.connection.pid;
  }

  /** The Wardrik tools of the named servers (none for a server that is down). Throws `NotFoundError` for an unknown name. */
  tools(_ctx: CapabilityContext, options: McpToolsOptions): CatalogEntry[] {
    const names = typeof options?.servers === 'string' ? [options.servers] : [...(options?.servers ?? [])];
    for (const name of names) {
      if (!this.entries.has(name))
        throw new NotFoundError(
          `MCP hub "${this.name}" has no server "${name}". It has: ${this.servers().join(', ') || 'none'}.`,
        );
    }
    const wanted = new Set(names);
    return this.services.catalog.entries().filter((entry) => wanted.has(entry.toolset));
  }

  /**
   * Adds (or replaces) a runtime server: options as plain data only. With an egress check it must be
   * HTTP(S) and its URL must pass the check. Kept in the store, so every node sharing it gets it on its
   * next reconcile. Resolves once it is stored and connecting (not once connected).
   */
  add(name: string, options: McpServerOptions): Promise<void> {
    return this.serially(async () => {
      this.ensureOpen();
      const definition = serverDefinition(this.name, name, options, true);
      const refusal = credentialRefusal(this.name, name, definition, this.settings.runtimeCredentials);
      if (refusal !== undefined) throw new ConfigurationError(refusal);
      const existing = this.entries.get(name);
      if (existing !== undefined && !existing.runtime) {
        throw new ConflictError(
          'configured_server',
          { hub: this.name, server: name },
          `"${name}" is a configured server of MCP hub "${this.name}"; it cannot be replaced at runtime. Add it under another name.`,
        );
      }
      if (existing === undefined) {
        const other = this.services.claims.claim(name, this.owner);
        if (other !== undefined)
          throw new ConflictError(
            'name_taken',
            { hub: this.name, server: name, owner: other },
            `Cannot add MCP server "${name}": ${other} has that name. Choose another.`,
          );
      }
      try {
        await admitRuntime(this.settings.check, this.name, name, httpUrlOf(definition));
        const updatedAt = this.services.clock.now();
        await this.services.store?.putMcpServer({ hub: this.name, name, options: definition, updatedAt });
        await this.replace(name, definition, updatedAt);
      } catch (error) {
        if (existing === undefined) this.services.claims.release(name, this.owner);
        throw error;
      }
    });
  }

  /**
   * Removes a runtime server: deleted from the store, its connection closed (a stdio process ended and
   * reaped), its tools gone. Throws `NotFoundError` (code `not_found`) for an unknown name and a
   * `ConflictError` for a configured server.
   */
  remove(name: string): Promise<void> {
    return this.serially(async () => {
      this.ensureOpen();
      const entry = this.entries.get(name);
      if (entry === undefined)
        throw new NotFoundError(
          `MCP hub "${this.name}" has no server "${name}". It has: ${this.servers().join(', ') || 'none'}.`,
        );
      if (!entry.runtime)
        throw new ConflictError(
          'configured_server',
          { hub: this.name, server: name },
          `"${name}" is a configured server of MCP hub "${this.name}"; only servers added at runtime can be removed.`,
        );
      await this.services.store?.deleteMcpServer(this.name, name);
      await this.drop(entry);
    });
  }

  /** Re-reads the runtime servers from the store now: starts those added elsewhere, stops those removed. */
  reconcile(): Promise<void> {
    return this.serially(async () => {
      const store = this.services.store;
      if (store === undefined || this.closed) return;
      const records = await store.listMcpServers(this.name);
      if (this.closed) return;
      const wanted = new Set(records.map((record) => record.name));
      for (const entry of [...this.entries.values()]) {
        if (entry.runtime && !wanted.has(entry.name)) await this.drop(entry);
      }
      for (const record of records) {
        const existing = this.entries.get(record.name);
        const verdict = storedServerVerdict(this.settings, record, existing);
        if (verdict.kind === 'unchanged') continue;
        if (verdict.kind === 'refused') {
          this.warn(verdict.warning);
          if (existing !== undefined && (verdict.stop === 'any' || (verdict.stop === 'runtime' && existing.runtime)))
            await this.drop(existing);
          continue;
        }
        if (existing === undefined) {
          const other = this.services.claims.claim(record.name, this.owner);
          if (other !== undefined) {
            this.warn(
              `The stored MCP server "${record.name}" of hub "${this.name}" has the name of ${other}; it is not started here.`,
            );
            continue;
          }
        }
        await this.replace(record.name, verdict.definition, record.updatedAt);
      }
    });
  }

  /**
   * Completes a person's sign-in from the URL their browser came back to (`…/oauth/callback?code=…&state=…`):
   * the code is exchanged for tokens, kept encrypted in the store, and the server connects. Any node on
   * the store can complete it. Returns the server's name; `NotFoundError` when no sign-in waits for it.
   */
  async completeSignIn(callbackUrl: string | URL, options: { readonly by?: string } = {}): Promise<string> {
    const servers = [...this.entries.values()]
      .filter((entry) => entry.options.oauth !== undefined)
      .map((entry) => ({
        name: entry.name,
        url: httpUrlOf(entry.options)!,
        oauth: entry.options.oauth!,
        runtime: entry.runtime,
      }));
    const server = await this.signIns.complete(new URL(callbackUrl), servers, options.by);
    this.entries.get(server)?.connection.retryNow();
    return server;
  }

  /** @internal Closes every connection (stdio processes ended and reaped) and timer. Safe to call twice. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.reconcileTimer?.cancel();
    await this.queue.catch(() => {});
    const entries = [...this.entries.values()];
    this.entries.clear();
    await Promise.all(
      entries.map(async (entry) => {
        entry.closed = true;
        this.services.catalog.delete(entry.name);
        this.services.claims.release(entry.name, this.owner);
        await entry.connection.close({ polite: true });
      }),
    );
    await this.services.ownedStore?.close();
  }

  private get owner(): string {
    return `an MCP server of hub "${this.name}"`;
  }

  private ensureOpen(): void {
    if (this.closed) throw new ClosedError(`MCP hub "${this.name}" is closed.`);
  }

  private async replace(name: string, options: McpServerOptions, updatedAt: number): Promise<void> {
    const existing = this.entries.get(name);
    if (existing !== undefined) await this.drop(existing, false);
    this.open(name, options, true, updatedAt);
  }

  private open(name: string, options: McpServerOptions, runtime: boolean, updatedAt: number): void {
    // eslint-disable-next-line prefer-const -- the callbacks need the name before the entry exists
    let entry: ServerEntry;
    const elicitation = options.elicitation ?? this.settings.elicitation;
    const trusted = options.trusted === true;
    const connection = new ServerConnection({
      hub: this.name,
      server: name,
      options,
      runtime,
      check: this.settings.check,
      credentials: this.services.credentials,
      timers: this.services.timers,
      timing: this.settings.timing,
      maxMessageBytes: this.settings.maxMessageBytes,
      ...(options.oauth === undefined
        ? {}
        : {
            signIn: () => this.signIns.providerFor({ name, url: httpUrlOf(options)!, oauth: options.oauth!, runtime }),
          }),
      ...(elicitation === false
        ? {}
        : {
            elicitation:
              elicitation === 'decline'
                ? 'decline'
                : (params, signal, link) => this.questions.ask(name, trusted, params, link, signal),
          }),
      onTools: (tools) => this.publish(entry, tools),
      onDown: (reason, retryInMs) => {
        if (entry.down || entry.closed) return;
        entry.down = true;
        this.warn(
          `MCP server "${name}" of hub "${this.name}" is down: ${reason}. It offers no tools until it is back; next try in ${retryInMs} ms, then with backoff up to ${this.settings.timing.maxDelayMs} ms.`,
        );
      },
    });
    const tools = new ServerTools({
      server: name,
      options,
      connection,
      maxResultChars: this.settings.maxResultChars,
      maxTools: this.settings.maxTools,
      pins: this.pins,
      asks: elicitation === 'inbox',
    });
    entry = { name, options, runtime, updatedAt, connection, tools, count: undefined, down: false, closed: false };
    this.entries.set(name, entry);
    connection.start();
  }

  /** Stops a server: connection closed, tools gone, `tools.changed` with count 0. */
  private async drop(entry: ServerEntry, release = true): Promise<void> {
    entry.closed = true;
    if (this.entries.get(entry.name) === entry) this.entries.delete(entry.name);
    this.services.catalog.delete(entry.name);
    if (release) this.services.claims.release(entry.name, this.owner);
    await entry.connection.close({ polite: true });
    this.changed(entry.name, 0);
  }

  /** Puts a server's listed tools in the catalog (none while it is down) and emits `tools.changed` on a change. */
  private publish(entry: ServerEntry, tools: readonly McpTool[] | undefined): void | Promise<void> {
    if (entry.closed || this.closed) return;
    if (tools === undefined) {
      entry.tools.forget();
      this.services.catalog.delete(entry.name);
      if (entry.count !== 0) {
        entry.count = 0;
        this.changed(entry.name, 0);
      }
      return;
    }
    entry.down = false;
    const adapting = entry.tools.adapt(tools);
    if (adapting instanceof Promise) return adapting.then((listing) => this.review(entry, listing));
    if (adapting !== undefined) return this.review(entry, adapting);
  }

  /**
   * Checks a listing's definitions against their pins before any of its tools is offered, so a changed
   * tool is never callable ungated. A store failure fails the listing: the connection is retried.
   */
  private async review(entry: ServerEntry, listing: AdaptedListing | undefined): Promise<void> {
    if (listing === undefined || entry.closed || this.closed) return;
    try {
      const trust = { trusted: entry.options.trusted === true, reviewed: entry.options.reviewed === true };
      await this.pins.review(entry.name, trust, listing.listed, (tool) => entry.tools.gate(tool));
    } catch (error) {
      entry.tools.forget();
      throw new Error(`its tools' pinned definitions could not be checked in the store (${(error as Error).message})`, {
        cause: error,
      });
    }
    this.offer(entry, listing);
  }

  /** Puts an adapted listing in the catalog, with its warnings, skipped tools and `tools.changed`. */
  private offer(entry: ServerEntry, listing: AdaptedListing | undefined): void {
    if (listing === undefined || entry.closed || this.closed) return;
    if (listing.overCap !== undefined) {
      this.warn(
        `MCP server "${entry.name}" of hub "${this.name}" lists ${listing.overCap} tools, more than maxTools (${this.settings.maxTools}); only the first ${this.settings.maxTools} are offered. ` +
          `Pick the ones you need with the server's only option, or raise maxTools.`,
      );
    }
    for (const skip of listing.skipped)
      this.services.events.emit({ type: 'tool.skipped', toolset: entry.name, tool: skip.tool, reason: skip.reason });
    const definitions = listing.definitions;
    const skipped = this.services.catalog.set(entry.name, definitions);
    for (const skip of skipped)
      this.services.events.emit({ type: 'tool.skipped', toolset: skip.toolset, tool: skip.tool, reason: skip.reason });
    entry.count = definitions.length - skipped.length;
    this.changed(entry.name, entry.count);
  }

  private changed(server: string, count: number): void {
    this.services.events.emit({ type: 'tools.changed', toolset: server, mcp: this.name, server, count });
  }

  private warn(message: string): void {
    if (!this.closed) this.services.events.emit({ type: 'warning', message });
  }

  private serially<T>(task: () => Promise<T>): Promise<T> {
    const next = this.queue.then(task, task);
    this.queue = next.catch(() => {});
    return next;
  }
}
