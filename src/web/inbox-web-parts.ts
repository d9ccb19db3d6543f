import type { Clock, Timers } from '../clock.js';
import type { Inbox } from '../inbox/inbox.js';
import type { Store } from '../store/store.js';
import type { EventBus } from '../telemetry/event-bus.js';

/** What the inbox page works on: the public inbox, the store it reads runs from, events for warnings, the clock and timers. */
export interface InboxWebParts {
  readonly inbox: Inbox;
  readonly store: Store;
  readonly events: EventBus;
  readonly clock: Clock;
  /** Where the notifier's polls and retries, held wrong guesses and body time-outs set their timers. */
  readonly timers: Timers;
  /** Completes an MCP server's OAuth sign-in from its callback URL; returns the server's name. */
  readonly completeSignIn?: (callback: URL, by: string) => Promise<string>;
}
