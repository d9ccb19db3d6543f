/** Where Wardrik reads the time; replace it (token `Tokens.Clock`) to control time in tests. */
export interface Clock {
  now(): number;
}

/** The longest wait a Node timer takes (2^31 - 1 ms, about 24.8 days); a longer one fires at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

export const systemClock: Clock = Object.freeze({ now: () => Date.now() });
