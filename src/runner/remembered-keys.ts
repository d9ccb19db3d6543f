import type { Clock } from '../clock.js';
import type { ClaimOutcome, RememberedClaim, Store } from '../store/store.js';
import { sleep } from './transient.js';

/**
 * Claims a remembered key for a call before its tool runs (`@Idempotent({ remember: true })`), so one
 * call runs per key across every node sharing the store. While another call holds the key with the
 * same arguments, waits (polling the store, at most `holdMs`, the longest a claim lives) for its result.
 * Answers the claim, the remembered result, or the other call's claim when waiting did not end it.
 */
export async function claimRememberedKey(
  store: Store,
  clock: Clock,
  claim: Omit<RememberedClaim, 'expiresAt'>,
  holdMs: number,
  signal: AbortSignal | undefined,
): Promise<ClaimOutcome> {
  const until = performance.now() + holdMs;
  for (let delayMs = 5; ; delayMs = Math.min(delayMs * 2, 200)) {
    const now = clock.now();
    const outcome = await store.claimRemembered({ ...claim, expiresAt: now + holdMs }, now);
    if (outcome.claimed || 'remembered' in outcome || outcome.digest !== claim.digest || performance.now() >= until) return outcome;
    if (!(await sleep(delayMs, signal))) return outcome;
  }
}
