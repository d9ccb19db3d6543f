/**
 * Money as Wardrik keeps it: integer micro-dollars (millionths of a US dollar). Sums of them are exact,
 * so ten $0.10 costs make exactly $1 and a `$1` budget takes exactly ten `$0.10` calls; in binary
 * floating point they make 0.9999999999999999, and an eleventh call would start.
 */
export const MICRO_PER_USD = 1_000_000;

/** Dollars to whole micro-dollars (a fraction of a micro-dollar is rounded). */
export function toMicroUsd(usd: number): number {
  return Math.round(usd * MICRO_PER_USD);
}

/** Micro-dollars to dollars, for people and events: the nearest double to the exact amount. */
export function toUsd(microUsd: number): number {
  return microUsd / MICRO_PER_USD;
}
