import type { OAuthClientProvider } from '@modelcontextprotocol/client';
import type { ElicitRequest, ElicitResult, Tool as McpTool } from '@modelcontextprotocol/client';
import type { Timers } from '../clock.js';
import type { QuestionLink } from './call-links.js';
import type { CredentialProvider } from './credentials.js';
import type { EgressCheck } from './egress.js';
import type { McpServerOptions } from './options.js';

/** Where a server's connection stands. */
export type ConnectionState = 'connecting' | 'connected' | 'down' | 'closed';

/** How a connection times its attempts, backoff and re-listing (the hub's options, checked). */
export interface ConnectionTiming {
  readonly connectTimeoutMs: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  readonly listDebounceMs: number;
  readonly random: () => number;
}

/** What one server's connection is built with: the server, how to reach it, and what it reports to its hub. */
export interface ConnectionSettings {
  readonly hub: string;
  readonly server: string;
  readonly options: McpServerOptions;
  /** Added at runtime: the egress check applies. */
  readonly runtime: boolean;
  readonly check: EgressCheck | undefined;
  readonly credentials: CredentialProvider;
  /** Where reconnect backoff, re-listing and a polite close's wait are timed. */
  readonly timers: Timers;
  readonly timing: ConnectionTiming;
  /** The largest message read from the server (a stdio line, a JSON body, an SSE event), in bytes. */
  readonly maxMessageBytes: number;
  /** The server's tools after each listing (waited for, when a long one is adapted in slices); `undefined` when it went down. */
  readonly onTools: (tools: readonly McpTool[] | undefined) => void | Promise<void>;
  /** The connection went down (or the first attempt failed), and why; for a warning event. */
  readonly onDown: (reason: string, retryInMs: number) => void;
  /** For a server with OAuth: the SDK's auth provider for an attempt (throws while a person has yet to sign in). */
  readonly signIn?: () => Promise<OAuthClientProvider>;
  /** The server's questions: declined at once, or asked of a person; none offers no elicitation. */
  readonly elicitation?:
    'decline' | ((params: ElicitRequest['params'], signal: AbortSignal, link: QuestionLink) => Promise<ElicitResult>);
}
