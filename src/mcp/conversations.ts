import { CONVERSATION_META, UNKNOWN_CONVERSATION } from './labels-meta.js';

/** The agent and run a call is for. */
export interface RunOf {
  readonly agent: string;
  readonly run: string;
}

/** Runs remembered per connection; the oldest is forgotten first (its next call starts a new conversation). */
const MAX_RUNS = 1_000;
/** A token longer than this is not kept: a server's word, bounded. */
const MAX_TOKEN_CHARS = 4_096;

/**
 * The conversation each of the hub's runs holds with one 2026-07-28 server that gives one (a Wardrik
 * server's `_meta['wardrik/conversation']`), so that the run's calls continue one run there: what an
 * earlier call read (`outside`) gates the later ones at the server too, as one session did in 2025-11-25,
 * and never another run's. Kept in this process only; a server that gives none is sent none.
 */
export class Conversations {
  private readonly tokens = new Map<string, string>();

  /** The `_meta` a call of `caller`'s run carries, if the server gave the run a token. */
  meta(caller: RunOf | undefined): Record<string, string> | undefined {
    const token = caller === undefined ? undefined : this.tokens.get(key(caller));
    return token === undefined ? undefined : { [CONVERSATION_META]: token };
  }

  /**
   * Whether `error` is the server refusing the token `params` carried (it restarted with another key, or the
   * token expired): nothing ran, so the call may go again without it. The run's token is forgotten then.
   */
  refused(caller: RunOf | undefined, params: Readonly<Record<string, unknown>>, error: unknown): boolean {
    const { code, data } = (error ?? {}) as { code?: unknown; data?: { reason?: unknown } };
    if (caller === undefined || params._meta === undefined || code !== -32602) return false;
    if (data?.reason !== UNKNOWN_CONVERSATION) return false;
    this.tokens.delete(key(caller));
    return true;
  }

  /** Keeps the token a result for `caller`'s run carries, the latest for the run. */
  remember(caller: RunOf | undefined, result: unknown): void {
    if (caller === undefined) return;
    const token = (result as { _meta?: Record<string, unknown> } | undefined)?._meta?.[CONVERSATION_META];
    if (typeof token !== 'string' || token.length > MAX_TOKEN_CHARS) return;
    const runKey = key(caller);
    this.tokens.delete(runKey);
    this.tokens.set(runKey, token);
    if (this.tokens.size > MAX_RUNS) this.tokens.delete(this.tokens.keys().next().value!);
  }
}

function key(caller: RunOf): string {
  return `${caller.agent}\n${caller.run}`;
}
