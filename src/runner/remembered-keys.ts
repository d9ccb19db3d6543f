import type { Clock, Timers } from '../clock.js';
import type { ClaimOutcome, RememberedClaim, Store } from '../store/store.js';
import { requireCapability } from '../store/capabilities.js';
import { errorAnswer, type ToolAnswer } from '../tools/result.js';
import { answerNotJournaled, storeFailure, type CallRef } from './call-failures.js';
import { argumentsDigest } from './digest.js';
import type { Tried } from './prepared-call.js';
import type { Maybe } from './maybe.js';
import { sleep } from './transient.js';

/** A call of an `@Idempotent({ remember: true })` tool, as `RememberedKeys` needs it. */
export interface RememberingCall extends CallRef {
  readonly idempotencyKey: string;
  readonly arguments: unknown;
  readonly signal?: AbortSignal | undefined;
}

/**
 * Results kept under their idempotency key (`@Idempotent({ remember: true })`), for APIs without keys
 * of their own: a repeat gets the stored result. One call runs per key: concurrent repeats in this
 * process join the first, and across processes the key is claimed in the store before the tool runs,
 * so a repeat on another node waits for the claimer's result (a store upsert let both run, and hand
 * out two different results).
 */
export class RememberedKeys {
  private readonly flights = new Map<string, { readonly digest: string; readonly answer: Promise<Tried> }>();

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly timers: Timers,
    private readonly rememberMs: number,
  ) {}

  private remembered() {
    return requireCapability(
      this.store,
      'RememberedResults',
      'a tool that remembers its results (@Idempotent({ remember: true }))',
    );
  }

  /**
   * Answers `call` from its key, or by `run` (which runs the tool's attempts) when the key is this
   * call's to run; an answer that did not run the tool counts as attempt `first`. `holdMs`
   * is the longest `run` can take: how long a claim lives if its node dies, and how long a repeat waits.
   */
  async answer(call: RememberingCall, holdMs: number, run: () => Maybe<Tried>, first: number): Promise<Tried> {
    const answered = (answer: ToolAnswer): Tried => ({ answer, attempt: first });
    const key = call.idempotencyKey;
    const digest = argumentsDigest(call.arguments);
    const conflict = errorAnswer(
      'conflict',
      `Idempotency key "${key}" was already used with other arguments; nothing ran. Use a new key for a different request.`,
    );
    const flight = this.flights.get(key);
    if (flight !== undefined) return answered(flight.digest === digest ? (await flight.answer).answer : conflict);
    // Registered before the first await, so concurrent duplicates in this process join this one.
    const answer = (async (): Promise<Tried> => {
      const owner = JSON.stringify([call.run, call.call]);
      const claim = await this.claim({ key, digest, owner }, holdMs, call.signal).catch((error: unknown) => {
        throw storeFailure(call, 'claim its idempotency key', error);
      });
      if ('remembered' in claim) {
        // Guard (remembered-key-arguments): a key reused with other arguments gets no other call's result.
        if (claim.remembered.digest !== digest) return answered(conflict);
        return answered(claim.remembered.answer);
      }
      if (!claim.claimed) {
        if (claim.digest !== digest) return answered(conflict);
        return answered(
          errorAnswer(
            'conflict',
            `Idempotency key "${key}" is being run by another call that has not finished yet; this call did not run. Ask again later for its result.`,
          ),
        );
      }
      let ran: Tried | undefined;
      try {
        ran = await run();
        const result = ran.answer;
        if (result.status === 'ok') {
          await this.remembered()
            .putRemembered({ key, digest, answer: result, expiresAt: this.clock.now() + this.rememberMs })
            .catch((error: unknown) => {
              throw answerNotJournaled(call, 'remember its result', error);
            });
        }
        return ran;
      } finally {
        // Nothing to remember: a later call with the key may run it (the claim would block it until it lapses).
        if (ran?.answer.status !== 'ok')
          await this.remembered()
            .releaseRemembered(key, owner)
            .catch(() => undefined);
      }
    })();
    this.flights.set(key, { digest, answer });
    try {
      return await answer;
    } finally {
      this.flights.delete(key);
    }
  }

  /**
   * Claims the key, waiting (polling the store, at most `holdMs`) while another call holds it with the
   * same arguments. Answers the claim, the remembered result, or the other call's claim if it outlasted the wait.
   */
  private async claim(
    claim: Omit<RememberedClaim, 'expiresAt'>,
    holdMs: number,
    signal: AbortSignal | undefined,
  ): Promise<ClaimOutcome> {
    const until = this.clock.now() + holdMs;
    for (let delayMs = 5; ; delayMs = Math.min(delayMs * 2, 200)) {
      const now = this.clock.now();
      const outcome = await this.remembered().claimRemembered({ ...claim, expiresAt: now + holdMs }, now);
      if (outcome.claimed || 'remembered' in outcome || outcome.digest !== claim.digest || this.clock.now() >= until)
        return outcome;
      if (!(await sleep(this.timers, delayMs, signal))) return outcome;
    }
  }
}
