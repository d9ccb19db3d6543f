import { setTimeout as sleep } from 'node:timers/promises';

/** How long `eventually` keeps looking before it fails the test; generous, for a loaded machine. */
const GIVE_UP_MS = 20_000;
const POLL_MS = 5;

/**
 * Waits until `check` returns true (or a truthy value, which it returns), polling; fails the test with
 * `what` and the last error `check` threw if it never does. For a state the test cannot await directly
 * (another process, a row in the store); where an event or a promise says it, await that instead.
 */
export async function eventually<T>(
  what: string,
  check: () => T | undefined | false | null | Promise<T | undefined | false | null>,
  options: { timeoutMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? GIVE_UP_MS);
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false && value !== null) return value;
      lastError = undefined;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      const why =
        lastError === undefined
          ? ''
          : `; last error: ${lastError instanceof Error ? lastError.message : JSON.stringify(lastError)}`;
      throw new Error(`Gave up waiting for ${what} after ${options.timeoutMs ?? GIVE_UP_MS} ms${why}`);
    }
    await sleep(POLL_MS);
  }
}
