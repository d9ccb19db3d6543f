import type { InjectionToken } from 'tsyringe';
import type { Clock } from '../clock.js';
import type { Inbox } from '../inbox/inbox.js';
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
  Events: Symbol.for('wardrik:events') as InjectionToken<EventBus>,
  Store: Symbol.for('wardrik:store') as InjectionToken<Store>,
  Catalog: Symbol.for('wardrik:catalog') as InjectionToken<ToolCatalog>,
  Policy: Symbol.for('wardrik:policy') as InjectionToken<Policy>,
  Runner: Symbol.for('wardrik:runner') as InjectionToken<ToolRunner>,
  Inbox: Symbol.for('wardrik:inbox') as InjectionToken<Inbox>,
});
