import type { Clock } from '../clock.js';
import type { Inbox } from '../inbox/inbox.js';
import type { Store } from '../store/store.js';
import type { EventBus } from '../telemetry/event-bus.js';

/** What the inbox page works on: the public inbox, the store it reads runs from, events for warnings, the clock. */
export interface InboxWebParts {
  readonly inbox: Inbox;
  readonly store: Store;
  readonly events: EventBus;
  readonly clock: Clock;
  /** Completes an MCP server's OAuth sign-in from its callback URL; returns the server's name. */
  readonly completeSignIn?: (callback: URL, by: string) => Promise<string>;
}
