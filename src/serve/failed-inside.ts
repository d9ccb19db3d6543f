/**
 * A served call that failed inside the server (a store, an identify hook): the client is told only that,
 * since the message may name a token or a host; the developer reads the cause through `warn`.
 */
export const FAILED_INSIDE = "The call failed inside the server; its cause is in the server's log. Call again later.";

/** Tells the developer why `what` (such as `A served call of orders__refund`) failed inside the server. */
export function warnFailedInside(warn: (message: string) => void, what: string, error: unknown): void {
  warn(`${what} failed inside the server: ${(error as Error)?.message ?? String(error)}`);
}
