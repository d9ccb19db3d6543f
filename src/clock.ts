/** Where Wardrik reads the time; replace it (token `Tokens.Clock`) to control time in tests. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = Object.freeze({ now: () => Date.now() });
