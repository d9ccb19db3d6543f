import type { Clock, Timers } from '../clock.js';
import type { McpServerRecords, Store } from '../store/store.js';
import type { EventBus } from '../telemetry/event-bus.js';
import type { ToolCatalog } from '../tools/catalog.js';
import type { ConnectionState } from './connection-settings.js';
import type { ServerConnection } from './connection.js';
import type { CredentialProvider } from './credentials.js';
import type { McpServerOptions } from './options.js';
import type { ServerTools } from './server-tools.js';
import type { ToolsetClaims } from './toolset-claims.js';

/** What a hub needs from Wardrik. */
export interface McpHubServices {
  readonly catalog: ToolCatalog;
  readonly events: EventBus;
  readonly clock: Clock;
  /** Where reconciling, reconnect backoff, re-listing, questions' waits and processes' exits set timers. */
  readonly timers: Timers;
  readonly credentials: CredentialProvider;
  readonly claims: ToolsetClaims;
  /** Where runtime servers are kept; none: this node only. */
  readonly store: (Store & McpServerRecords) | undefined;
  /** Closed with the hub (a store the hub opened from a URL). */
  readonly ownedStore?: Store;
}

/** One server as `hub.status()` reports it. */
export interface McpServerStatus {
  readonly name: string;
  /** Added at runtime (`hub.add` or another node), not configured. */
  readonly runtime: boolean;
  readonly state: ConnectionState;
  /** How many tools it offers now: 0 while it is down. */
  readonly tools: number;
  /** Why it is down, when it is. */
  readonly error?: string;
}

/** What `hub.tools(ctx, options)` takes: a server name or several. */
export interface McpToolsOptions {
  readonly servers: string | readonly string[];
}

/** A server this hub runs, with what it offers now. */
export interface ServerEntry {
  readonly name: string;
  readonly options: McpServerOptions;
  readonly runtime: boolean;
  /** The store record's time, for reconcile. */
  readonly updatedAt: number;
  readonly connection: ServerConnection;
  /** Its listed tools, adapted. */
  readonly tools: ServerTools;
  count: number | undefined;
  down: boolean;
  closed: boolean;
}
