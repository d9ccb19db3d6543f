import 'reflect-metadata';
import { createRequire } from 'node:module';
import { container as rootContainer, type DependencyContainer } from 'tsyringe';
import { provideStore } from './provide-store.js';
import type { Observable } from 'rxjs';
import type { Agent } from '../agent/agent.js';
import type { AgentService } from '../agent/agent-service.js';
import type { ModelRegistry } from '../agent/model-registry.js';
import type { AgentOptions, AgentsOptions } from '../agent/options.js';
import { ConfigurationError } from '../errors.js';
import type { Inbox } from '../inbox/inbox.js';
import type { McpHub } from '../mcp/hub.js';
import type { McpHubOptions } from '../mcp/options.js';
import { numberOption, timerRule } from '../options.js';
import type { PolicyOptions } from '../policy/policy.js';
import { PassQueue } from '../runner/pass-queue.js';
import { startMetrics } from '../telemetry/metrics.js';
import type { RecoveryReport, RunnerOptions, ToolRunner } from '../runner/tool-runner.js';
import { checkStartupNeeds, requireCapability } from '../store/capabilities.js';
import {
  DEFAULT_FINISHED_AFTER_MS,
  DEFAULT_PRUNE_EVERY_MS,
  pruneFinished,
  type RetentionOptions,
} from '../store/retention.js';
import type { PruneReport, Store } from '../store/store.js';
import type { EventBus } from '../telemetry/event-bus.js';
import type { CostEvent, ToolsChangedEvent, WardrikEvent } from '../telemetry/events.js';
import type { ToolCatalog } from '../tools/catalog.js';
import type { ToolDefinition } from '../tools/tool.js';
import { toolInfo, type ToolInfo } from '../tools/tool-info.js';
import { registerTool, type RuntimeToolOptions } from '../tools/runtime-tools.js';
import type { InboxWeb } from '../web/inbox-web.js';
import type { InboxWebOptions } from '../web/options.js';
import { WardrikMcpServer } from '../serve/mcp-server.js';
import type { ServeOptions } from '../serve/options.js';
import type { AuditOptions } from '../audit/options.js';
import { startAudit } from './audit.js';
import { buildHubs, completeSignIn, findHub } from './hubs.js';
import { repeat } from './repeat.js';
import { buildServices, refuseBuiltServices, registerServices, resolveSeams, type Services } from './services.js';
import { Tokens } from './tokens.js';
import { registerToolsets, type ToolsetEntry } from './toolsets.js';

export type { ToolsetClass, ToolsetEntry } from './toolsets.js';

export { DEFAULT_STORE } from './provide-store.js';
const DEFAULT_RECOVER_MS = 60_000;

/** What `Wardrik.create` takes. */
export interface WardrikOptions {
  /**
   * Toolset classes, their constructor dependencies from the container (each must be registered there,
   * docs/di.md), or instances the app built, such as NestJS providers.
   */
  readonly toolsets?: readonly ToolsetEntry[];
  /** Tool values (from `defineTool`) by toolset name: `{ workers: [findOrder] }` offers `workers/find_order`. */
  readonly tools?: Readonly<Record<string, readonly ToolDefinition[]>>;
  /** The app's tsyringe container; Wardrik works in a child of it. Its own when absent. */
  readonly container?: DependencyContainer;
  /**
   * Where calls, the inbox, spend and turns are kept: `sqlite:PATH` (the default is
   * `sqlite:.wardrik/wardrik.db`), `postgres://…` for many nodes, `memory:` for tests, or a Store.
   */
  readonly store?: string | Store;
  readonly policy?: PolicyOptions;
  readonly runner?: RunnerOptions;
  /** How often to look for runs whose node died (their lease expired) and finish them: 60 000 ms; `Infinity` never. */
  readonly recoverMs?: number;
  /**
   * MCP servers whose tools agents get: one hub's options (`{ servers: { github: { transport } } }`,
   * named `mcp` unless `name` is set), or an array of hubs with different names.
   */
  readonly mcp?: McpHubOptions | readonly McpHubOptions[];
  /** Settings for every agent: provider keys and base URLs, prices, model retries. */
  readonly agents?: AgentsOptions;
  /** How long finished runs are kept before a background pass deletes them: 30 days. */
  readonly retention?: RetentionOptions;
  /** A hash-chained trail of every decision and answer (docs/approvals.md); none unless given (`{}`). */
  readonly audit?: AuditOptions;
}

/**
 * One Wardrik: its own child container, store, tools, runner and inbox. Two in one process share
 * nothing. Build it with `await Wardrik.create(options)`; release it with `close()`.
 */
export class Wardrik {
  private closed = false;
  /** Stops handling inbox items past `approvalTtlMs` / `escalateAfterMs`. */
  private stopOverdue: () => void = () => undefined;
  /** Stop the timers of the recovery and retention passes. */
  private stopRecovering: () => void = () => undefined;
  private stopPruning: () => void = () => undefined;
  private stopAudit: () => Promise<void> = async () => undefined;
  /** Stops the OpenTelemetry metrics, when the app has a MeterProvider. */
  private stopMetrics: () => void = () => undefined;
  /** Recovery passes (the runner's, then the agents'), one at a time, also when `recoverMs` is shorter than a pass. */
  private readonly recoveries = new PassQueue(async () => {
    const started = performance.now();
    try {
      const report = await this.runner.recover();
      // Then agent turns, so that calls a crash left in flight have their answers before a turn reads them.
      await this.agents.recover();
      this.bus.emit({ type: 'recovery.finished', durationMs: performance.now() - started, report });
      return report;
    } catch (error) {
      this.bus.emit({
        type: 'recovery.finished',
        durationMs: performance.now() - started,
        error: (error as Error).message,
      });
      throw error;
    }
  });
  /** Retention passes, one at a time: each deletes finished runs older than `finishedAfterMs`. */
  private readonly retention = new PassQueue(() => this.prune());
  private finishedAfterMs = DEFAULT_FINISHED_AFTER_MS;
  /** Toolset names and who registered them; MCP servers claim theirs here too. */
  private readonly toolsetNames = new Map<string, string>();
  private readonly hubs: McpHub[] = [];
  private readonly webs: InboxWeb[] = [];
  private readonly servers: WardrikMcpServer[] = [];
  private readonly bus: EventBus;
  private readonly catalog: ToolCatalog;
  /** The call pipeline: `runner.run({ agent, run, call })`. */
  readonly runner: ToolRunner;
  /** Where a person answers parked calls. */
  readonly inbox: Inbox;

  private constructor(
    /** The child container Wardrik registered its services in; resolve them by `Tokens`. */
    readonly container: DependencyContainer,
    private readonly services: Services,
    private readonly ownsStore: boolean,
  ) {
    // Kept as fields: they are read on every call, and a container lookup costs more than a fast call's checks.
    this.runner = services.runner;
    this.inbox = services.inbox;
    this.bus = services.events;
    this.catalog = services.catalog;
  }

  /**
   * Builds a Wardrik: the seams (the app's where its container holds them, else the defaults), the store,
   * then the services on them (services.ts), the toolsets and MCP hubs; then recovers what a crash left.
   */
  static async create(options: WardrikOptions = {}): Promise<Wardrik> {
    const parent = options.container ?? rootContainer;
    refuseBuiltServices(parent);
    const child = parent.createChildContainer();
    const seams = resolveSeams(parent, child, options);
    const bus = seams.events;
    const { store, ownsStore } = await provideStore(parent, child, options.store);
    let wardrik: Wardrik;
    let times: PassTimes;
    try {
      times = passTimes(options);
      const services = buildServices(seams, store, options);
      registerServices(child, services);
      wardrik = new Wardrik(child, services, ownsStore);
      wardrik.finishedAfterMs = times.finishedAfterMs;
    } catch (error) {
      // Options refused (recoverMs, the runner's, the agents'): the store Wardrik was to own is closed again.
      if (ownsStore) await store.close();
      throw error;
    }
    try {
      if (options.policy?.askWhenOutside === false) {
        bus.emit({
          type: 'warning',
          message:
            'policy.askWhenOutside is off: a run that has read outside text (labelled "outside") can call tools ' +
            'that change things without a person, and send confidential data it read to tools that reach outside. ' +
            'Turn it back on unless every allow rule is safe against prompt injection.',
        });
      }
      const { catalog, toolsetNames } = wardrik;
      registerToolsets({ container: child, catalog, events: bus, toolsetNames }, options.toolsets, options.tools);
      // Cedar policies are checked against the schema of the tools just registered (a seam Policy may not have them).
      if (options.policy?.cedar !== undefined) wardrik.services.policy.useTools(catalog.select());
      const rememberingTool = catalog.select().find((entry) => entry.tool.annotations.remember === true)?.ref;
      checkStartupNeeds(store, { retention: times.finishedAfterMs !== Infinity, rememberingTool });
      wardrik.stopAudit = await startAudit(wardrik.services, options.audit, times.pruneEveryMs);
      // Before the first recovery pass and call, so the metrics count them.
      wardrik.stopMetrics =
        (await startMetrics({ bus, clock: child.resolve(Tokens.Clock), waiting: () => wardrik.inbox.list() })) ??
        (() => undefined);
      // Before recovery, so calls a crash left in flight find their MCP tools.
      await wardrik.startMcp(options.mcp);
      // Finish what a crash left behind, then keep taking over runs of nodes that die. A store
      // opened read-only is there to be inspected: recovery would write.
      if (store.readOnly !== true) {
        wardrik.startRecovering(times.recoverMs);
        wardrik.stopOverdue = wardrik.inbox.watchOverdue((error) =>
          bus.emit({
            type: 'warning',
            message: `Overdue inbox items could not be handled and will be tried again: ${(error as Error).message}`,
          }),
        );
        await wardrik.recover();
        if (times.finishedAfterMs !== Infinity) wardrik.startPruning(times.pruneEveryMs);
      }
    } catch (error) {
      await wardrik.close();
      throw error;
    }
    bus.markStarted();
    return wardrik;
  }

  /** Every event, typed; events from start-up (skipped tools, warnings) are replayed to each subscriber. */
  get events$(): Observable<WardrikEvent> {
    return this.bus.events$;
  }

  /** Every `cost` event: a tool's or a model's spend, with the agent's running total. */
  get costs$(): Observable<CostEvent> {
    return this.bus.costs$;
  }

  /** Every `tools.changed` event. */
  get toolChanges$(): Observable<ToolsChangedEvent> {
    return this.bus.toolChanges$;
  }

  /** The tools a model can be given, optionally only those matching patterns such as `orders/*`. */
  tools(patterns?: readonly string[]): ToolInfo[] {
    return this.catalog.select(patterns).map(toolInfo);
  }

  /**
   * Registers a functional tool now, in toolset `workers` unless `toolset` says (docs/tools.md); agents and
   * MCP clients see it from then on.
   */
  tool<Args>(definition: RuntimeToolOptions<Args>): void {
    registerTool({ catalog: this.catalog, toolsets: this.toolsetNames, events: this.bus }, definition);
  }

  /**
   * Finishes calls a crash left in flight: repeatable ones run again with their idempotency key, others
   * park as `in_doubt` for a person. Runs by itself at start-up and every `recoverMs`.
   */
  recover(): Promise<RecoveryReport> {
    return this.recoveries.run();
  }

  /**
   * Deletes finished runs last written more than `olderThanMs` ago (`retention.finishedAfterMs`
   * unless given): their turns, steps, calls, labels and answered inbox items, a small batch a
   * transaction. Parked and in-doubt runs stay. Runs by itself every `retention.everyMs`. With
   * `dryRun`, deletes nothing and says what would go.
   */
  prune(options: { readonly olderThanMs?: number; readonly dryRun?: boolean } = {}): Promise<PruneReport> {
    const olderThanMs = numberOption('prune olderThanMs', options.olderThanMs, this.finishedAfterMs, {
      min: 0,
      infinity: true,
      unit: 'milliseconds',
    });
    const store = this.container.resolve(Tokens.Store);
    return pruneFinished(
      requireCapability(store, 'Pruning', 'wardrik.prune()'),
      this.container.resolve(Tokens.Clock).now() - olderThanMs,
      options.dryRun === true,
    );
  }

  /**
   * Starts an agent: a model, instructions, tools chosen by pattern, a policy and a budget. Its options
   * are checked now (a bad pattern, budget, model or missing key throws a ConfigurationError).
   */
  startAgent(options: AgentOptions): Agent {
    return this.agents.start(options);
  }

  /** The agents' turn loop: `agents.recover()`, `agents.get(id)`. */
  get agents(): AgentService {
    return this.container.resolve(Tokens.Agents);
  }

  /** Where `'provider:model'` names are resolved: `models.register('ollama', (id) => model)`. */
  get models(): ModelRegistry {
    return this.container.resolve(Tokens.Models);
  }

  /**
   * The MCP hub named `name`; without a name, the one named `mcp` or else the only one. Throws a
   * `ConfigurationError` when there is none.
   */
  mcp(name?: string): McpHub {
    return findHub(this.hubs, name);
  }

  /**
   * The inbox in a browser: a page and a JSON API where people answer parked calls of every node that
   * shares this store, and webhook notifications when one starts waiting. Mount `web.handler` under a
   * path of your app (with `authenticate`, its login decides who answers), or `await web.listen()`.
   * An approval runs the call here when this Wardrik offers the tool; else a node that does runs it.
   */
  inboxWeb(options: InboxWebOptions = {}): InboxWeb {
    // Loaded on first use: a Wardrik that only serves MCP or runs agents (most starts) never needs it.
    const { InboxWeb } = createRequire(import.meta.url)('../web/inbox-web.js') as typeof import('../web/inbox-web.js');
    const web = new InboxWeb(
      {
        inbox: this.inbox,
        store: this.container.resolve(Tokens.Store),
        events: this.bus,
        clock: this.container.resolve(Tokens.Clock),
        timers: this.container.resolve(Tokens.Timers),
        completeSignIn: (url, by) => completeSignIn(this.hubs, url, by),
      },
      options,
    );
    this.webs.push(web);
    return web;
  }

  /**
   * Serves the tools matching `options.tools` to any MCP client, over Streamable HTTP (`listen`, or
   * `handler()` mounted in an app) or any SDK transport, stdio included (`connect`). Every call goes
   * through the runner as an agent's does. Throws a ConfigurationError for bad options (its policy rules
   * are checked now, as an agent's are), or when two served tools would share a name with `names: 'bare'`.
   */
  mcpServer(options: ServeOptions): WardrikMcpServer {
    if (this.closed) throw new ConfigurationError('This Wardrik is closed; mcpServer needs an open one.');
    const policy = this.container.resolve(Tokens.Policy);
    if (options.policy !== undefined) policy.prepare(options.policy);
    const store = this.container.resolve(Tokens.Store);
    const warn = (message: string) => this.bus.emit({ type: 'warning', message });
    const server = new WardrikMcpServer(
      {
        runner: this.runner,
        store,
        inbox: this.inbox,
        catalog: this.catalog,
        policy,
        clock: this.container.resolve(Tokens.Clock),
        timers: this.container.resolve(Tokens.Timers),
        confidential: this.container.resolve(Tokens.Policy).confidential,
        warn,
      },
      options,
    );
    this.servers.push(server);
    return server;
  }

  /** Releases the MCP hubs (connections closed, processes reaped), the container and the store. Safe to call twice. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stopOverdue();
    this.stopRecovering();
    this.stopPruning();
    await this.recoveries.stop();
    this.stopMetrics();
    await this.retention.stop();
    await this.stopAudit();
    await Promise.all(this.webs.map((web) => web.close()));
    await Promise.all(this.servers.map((server) => server.close()));
    await this.agents.close();
    await Promise.all(this.hubs.map((hub) => hub.close()));
    this.bus.complete();
    try {
      await this.runner.close();
      if (this.ownsStore) await this.container.resolve(Tokens.Store).close();
    } finally {
      await this.container.dispose();
    }
  }

  private startRecovering(ms: number): void {
    this.stopRecovering = repeat(this.recoveries, this.services.timers, ms, (error: unknown) =>
      this.bus.emit({
        type: 'warning',
        message: `Recovery failed and will be tried again: ${(error as Error).message}`,
      }),
    );
  }

  private startPruning(ms: number): void {
    this.stopPruning = repeat(this.retention, this.services.timers, ms, (error: unknown) =>
      this.bus.emit({
        type: 'warning',
        message: `Deleting finished runs failed and will be tried again: ${(error as Error).message}`,
      }),
    );
  }

  /** Builds each MCP hub, registers it in the container and starts it (each waits at most its `waitMs`). */
  private async startMcp(mcp: WardrikOptions['mcp']): Promise<void> {
    if (mcp === undefined) return;
    await buildHubs(mcp, { services: this.services, toolsetNames: this.toolsetNames }, this.hubs);
    for (const hub of this.hubs) this.container.register(Tokens.Capabilities, { useValue: hub });
    const main = this.hubs.find((hub) => hub.name === 'mcp') ?? this.hubs[0];
    if (main !== undefined) this.container.register(Tokens.Mcp, { useValue: main });
    await Promise.all(this.hubs.map((hub) => hub.start()));
  }
}

/** How often recovery and retention run, and what retention keeps. */
interface PassTimes {
  readonly recoverMs: number;
  readonly finishedAfterMs: number;
  readonly pruneEveryMs: number;
}

/** Checked before anything starts: a bad value would otherwise surface after every MCP server spawned. */
function passTimes(options: WardrikOptions): PassTimes {
  const { retention } = options;
  return {
    recoverMs: numberOption('recoverMs', options.recoverMs, DEFAULT_RECOVER_MS, timerRule({ min: 1 }, true)),
    finishedAfterMs: numberOption('retention.finishedAfterMs', retention?.finishedAfterMs, DEFAULT_FINISHED_AFTER_MS, {
      min: 0,
      infinity: true,
      unit: 'milliseconds',
    }),
    pruneEveryMs: numberOption(
      'retention.everyMs',
      retention?.everyMs,
      DEFAULT_PRUNE_EVERY_MS,
      timerRule({ min: 1 }, true),
    ),
  };
}
