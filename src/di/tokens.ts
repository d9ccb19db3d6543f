import type { InjectionToken } from 'tsyringe';
import type { AgentService } from '../agent/agent-service.js';
import type { ModelRegistry } from '../agent/model-registry.js';
import type { Clock, Timers } from '../clock.js';
import type { Inbox } from '../inbox/inbox.js';
import type { CapabilityProvider } from '../mcp/capability.js';
import type { CredentialProvider } from '../mcp/credentials.js';
import type { McpHub } from '../mcp/hub.js';
import type { Policy } from '../policy/policy.js';
import type { ToolRunner } from '../runner/tool-runner.js';
import type { Store } from '../store/store.js';
import type { EventBus } from '../telemetry/event-bus.js';
import type { ToolCatalog } from '../tools/catalog.js';

/**
 * Every service of a Wardrik, by token: resolve any of them from `wardrik.container`. The seams (`Clock`,
 * `Timers`, `Events`, `Store`, `Policy`, `Credentials`, `Models`) may be replaced: register your own under
 * the token in the container you pass to `Wardrik.create` and Wardrik uses it instead of its default
 * (docs/di.md). Wardrik builds the others itself (`Catalog`, `Runner`, `Inbox`, `Agents`, `Capabilities`,
 * `Mcp`); registering one of those is refused at start-up with a ConfigurationError.
 */
export const Tokens = Object.freeze({
  /** Where Wardrik reads the time: event times, leases, deadlines, retention. A seam. */
  Clock: Symbol.for('wardrik:clock') as InjectionToken<Clock>,
  /** Where timers are set (backoff, deadlines, leases, idle windows, waits); replace it with the clock. A seam. */
  Timers: Symbol.for('wardrik:timers') as InjectionToken<Timers>,
  /** Where every event goes, and `wardrik.events$` comes from. A seam. */
  Events: Symbol.for('wardrik:events') as InjectionToken<EventBus>,
  /** Where calls, the inbox, spend and turns are kept. A seam (or the `store` option: one of the two). */
  Store: Symbol.for('wardrik:store') as InjectionToken<Store>,
  /** Every tool Wardrik offers, filled from its options and MCP hubs. Built by Wardrik. */
  Catalog: Symbol.for('wardrik:catalog') as InjectionToken<ToolCatalog>,
  /** Decides deny, ask or allow for each call. A seam (else built from the `policy` option). */
  Policy: Symbol.for('wardrik:policy') as InjectionToken<Policy>,
  /** The call pipeline, `wardrik.runner`. Built by Wardrik. */
  Runner: Symbol.for('wardrik:runner') as InjectionToken<ToolRunner>,
  /** Parked calls and a person's answers, `wardrik.inbox`. Built by Wardrik. */
  Inbox: Symbol.for('wardrik:inbox') as InjectionToken<Inbox>,
  /** Resolves a credential's name to its secret when an MCP connection starts; the environment by default. A seam. */
  Credentials: Symbol.for('wardrik:credentials') as InjectionToken<CredentialProvider>,
  /** Every capability provider (each MCP hub): `container.resolveAll(Tokens.Capabilities)`. Built by Wardrik. */
  Capabilities: Symbol.for('wardrik:capabilities') as InjectionToken<CapabilityProvider>,
  /** The default MCP hub (named `mcp`, or the only one), when `Wardrik.create` was given `mcp`. Built by Wardrik. */
  Mcp: Symbol.for('wardrik:mcp') as InjectionToken<McpHub>,
  /** Turns `'provider:model'` into a language model (AI SDK 7 or 6). A seam (else built from `agents.providers`). */
  Models: Symbol.for('wardrik:models') as InjectionToken<ModelRegistry>,
  /** Runs agent turns, `wardrik.agents`. Built by Wardrik. */
  Agents: Symbol.for('wardrik:agents') as InjectionToken<AgentService>,
});
