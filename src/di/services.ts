import type { DependencyContainer, InjectionToken } from 'tsyringe';
import { AgentService } from '../agent/agent-service.js';
import { ModelRegistry, type ModelsOptions } from '../agent/model-registry.js';
import { systemClock, systemTimers, type Clock, type Timers } from '../clock.js';
import { ConfigurationError } from '../errors.js';
import { Inbox } from '../inbox/inbox.js';
import { EnvCredentialProvider, type CredentialProvider } from '../mcp/credentials.js';
import { Policy, type PolicyOptions } from '../policy/policy.js';
import { ToolRunner, type RunnerOptions } from '../runner/tool-runner.js';
import type { AgentsOptions } from '../agent/options.js';
import type { Store } from '../store/store.js';
import { EventBus } from '../telemetry/event-bus.js';
import { ToolCatalog } from '../tools/catalog.js';
import { Tokens } from './tokens.js';

/**
 * The seams: the services an app may replace by registering its own under the token in the container it
 * gives `Wardrik.create`. Each is a small interface (or a class the app may extend) that nothing calls
 * an internal member of, so a replacement works everywhere the default does. docs/di.md describes each.
 */
export const SEAMS = ['Clock', 'Timers', 'Events', 'Store', 'Policy', 'Credentials', 'Models'] as const;

/**
 * Why Wardrik builds the rest itself, and what to do instead, by token. Their partners call members marked
 * `@internal` (left out of the published types), or Wardrik fills them from its options, so an app's own
 * would fail at the first call rather than at start-up.
 */
const BUILT_BY_WARDRIK = {
  Catalog: {
    cause: 'Wardrik fills its catalog from the toolsets, tools and mcp options, and checks every tool there',
    fix: 'give tools with the toolsets or tools option or wardrik.tool(), and read them with wardrik.tools()',
  },
  Runner: {
    cause: 'the inbox, the agents and the MCP server call members of the runner that are not in its published type',
    fix: 'set how calls run with the runner option, and what they may do with policy or Tokens.Policy',
  },
  Inbox: {
    cause: 'the runner, the agents and the inbox page call members of the inbox that are not in its published type',
    fix: 'answer parked calls through wardrik.inbox or wardrik.inboxWeb(), and hear of them on events$ (tool.parked)',
  },
  Agents: {
    cause: 'each agent calls members of the agent service that are not in its published type',
    fix: 'set what every agent shares with the agents option, and its models with Tokens.Models',
  },
  Capabilities: {
    cause: 'Wardrik registers one capability provider for each MCP hub it makes from its mcp option',
    fix: 'give MCP servers with the mcp option, and read the hubs with wardrik.mcp(name)',
  },
  Mcp: {
    cause: 'Wardrik registers the default MCP hub it makes from its mcp option',
    fix: 'give MCP servers with the mcp option, and read the hub with wardrik.mcp()',
  },
} as const satisfies Partial<Record<keyof typeof Tokens, { cause: string; fix: string }>>;

/**
 * Refuses, at start-up and before anything opens, a registration under a token Wardrik builds itself:
 * used, it would fail later inside a call; ignored, the app would believe it in use.
 */
export function refuseBuiltServices(parent: DependencyContainer): void {
  for (const [name, { cause, fix }] of Object.entries(BUILT_BY_WARDRIK)) {
    const token: InjectionToken<unknown> = Tokens[name as keyof typeof BUILT_BY_WARDRIK];
    if (!parent.isRegistered(token, true)) continue;
    throw new ConfigurationError(
      `Tokens.${name} is registered in the container given to Wardrik.create, but Wardrik builds that service ` +
        `itself and cannot use another: ${cause}. Remove the registration; ${fix}. The services an app may ` +
        `replace are ${SEAMS.map((seam) => `Tokens.${seam}`).join(', ')} (docs/di.md).`,
    );
  }
}

/** The seams but the store, each the app's when its container holds one under the token, else the default. */
export interface Seams {
  readonly clock: Clock;
  readonly timers: Timers;
  readonly events: EventBus;
  readonly policy: Policy;
  readonly credentials: CredentialProvider;
  readonly models: ModelRegistry;
}

/** What the defaults are made from: the options of `Wardrik.create` they read. */
export interface SeamOptions {
  readonly policy?: PolicyOptions;
  readonly agents?: { readonly providers?: ModelsOptions };
}

/** Resolves the seams other than the store, in an order where each default may use those before it. */
export function resolveSeams(parent: DependencyContainer, child: DependencyContainer, options: SeamOptions): Seams {
  // Resolved through the child, as the services are: an app's class registration is built in Wardrik's container.
  const seam = <T>(token: InjectionToken<T>, make: () => T): T =>
    parent.isRegistered(token, true) ? child.resolve(token) : make();
  const clock = seam(Tokens.Clock, () => systemClock);
  const timers = seam(Tokens.Timers, () => systemTimers);
  const events = seam(Tokens.Events, () => new EventBus(clock));
  const policy = seam(Tokens.Policy, () => new Policy(options.policy ?? {}));
  const credentials = seam(Tokens.Credentials, () => new EnvCredentialProvider());
  const models = seam(Tokens.Models, () => new ModelRegistry(options.agents?.providers));
  return { clock, timers, events, policy, credentials, models };
}

/** Every service of one Wardrik: the seams, the store, and what Wardrik builds on them. */
export interface Services extends Seams {
  readonly store: Store;
  readonly catalog: ToolCatalog;
  readonly runner: ToolRunner;
  readonly inbox: Inbox;
  readonly agents: AgentService;
}

/** What the built services are made from: the options of `Wardrik.create` they read. */
export interface ServiceOptions {
  readonly runner?: RunnerOptions;
  readonly agents?: AgentsOptions;
}

/**
 * Builds the services on the seams: the one place each is made, with its dependencies listed once, in the
 * order of their constructors. A constructor that refuses an option throws a ConfigurationError here.
 */
export function buildServices(seams: Seams, store: Store, options: ServiceOptions): Services {
  const { clock, timers, events, policy, models } = seams;
  const catalog = new ToolCatalog();
  const runner = new ToolRunner(catalog, store, events, policy, clock, timers, options.runner);
  const inbox = new Inbox(store, runner, events, clock, timers, policy);
  const agents = new AgentService(store, runner, catalog, events, policy, clock, timers, models, options.agents);
  return { ...seams, store, catalog, runner, inbox, agents };
}

/**
 * Registers every service in Wardrik's own container, so that `wardrik.container.resolve(Tokens.X)` and a
 * toolset's injected `@inject(Tokens.X)` get the one Wardrik uses (a seam the app gave included).
 */
export function registerServices(child: DependencyContainer, services: Services): void {
  const register = <T>(token: InjectionToken<T>, value: T): void => void child.register(token, { useValue: value });
  register(Tokens.Clock, services.clock);
  register(Tokens.Timers, services.timers);
  register(Tokens.Events, services.events);
  register(Tokens.Store, services.store);
  register(Tokens.Policy, services.policy);
  register(Tokens.Credentials, services.credentials);
  register(Tokens.Models, services.models);
  register(Tokens.Catalog, services.catalog);
  register(Tokens.Runner, services.runner);
  register(Tokens.Inbox, services.inbox);
  register(Tokens.Agents, services.agents);
}
