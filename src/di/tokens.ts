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
 * Every service Wardrik registers, by token. Register your own under a token in the container you pass
 * to `Wardrik.create` and Wardrik uses it instead of its default.
 */
export const Tokens = Object.freeze({
  Clock: Symbol.for('wardrik:clock') as InjectionToken<Clock>,
  /** Where timers are set (backoff, deadlines, leases, idle windows, waits); replace it with the clock. */
  Timers: Symbol.for('wardrik:timers') as InjectionToken<Timers>,
  Events: Symbol.for('wardrik:events') as InjectionToken<EventBus>,
  Store: Symbol.for('wardrik:store') as InjectionToken<Store>,
  Catalog: Symbol.for('wardrik:catalog') as InjectionToken<ToolCatalog>,
  Policy: Symbol.for('wardrik:policy') as InjectionToken<Policy>,
  Runner: Symbol.for('wardrik:runner') as InjectionToken<ToolRunner>,
  Inbox: Symbol.for('wardrik:inbox') as InjectionToken<Inbox>,
  /** Resolves a credential's name to its secret when an MCP connection starts; environment variables by default. */
  Credentials: Symbol.for('wardrik:credentials') as InjectionToken<CredentialProvider>,
  /** Every capability provider (each MCP hub), one registration each: `container.resolveAll(Tokens.Capabilities)`. */
  Capabilities: Symbol.for('wardrik:capabilities') as InjectionToken<CapabilityProvider>,
  /** The default MCP hub (named `mcp`, or the only one), when `Wardrik.create` was given `mcp`. */
  Mcp: Symbol.for('wardrik:mcp') as InjectionToken<McpHub>,
  /** Turns `'provider:model'` into a LanguageModelV3; register more providers on it. */
  Models: Symbol.for('wardrik:models') as InjectionToken<ModelRegistry>,
  /** Runs agent turns. */
  Agents: Symbol.for('wardrik:agents') as InjectionToken<AgentService>,
});
