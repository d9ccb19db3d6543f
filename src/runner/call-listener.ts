import type { CallRef } from './call-failures.js';

/**
 * What the runner tells the code that sends it calls (the agent service) about them. It does not go
 * through the event stream: a user may replace `Tokens.Events` with a bus that drops everything, and
 * agents must still count their spend and resume their parked turns. Called synchronously, before the
 * call's answer is returned; a listener must not throw.
 */
export interface CallListener {
  /**
   * The call's final answer is in the journal, or held in its run's `JournalBatch` (an agent's turn),
   * which commits it with the run's next write. `costUsd` is what its tool reported spending on it in
   * this process; `wasParked` says the call had been parked (a person answered it, or let it run here).
   */
  settled(call: CallRef, costUsd: number, wasParked: boolean): void;
  /** The call parked (for approval, or because its tool asked a person) after costing `costUsd` here. */
  parked(call: CallRef, costUsd: number): void;
  /**
   * The call's tool waits for a person (an MCP server asked a question, inbox item `inboxId`) while the
   * call stays in flight: the caller may stop waiting for it and park, as for a parked call. `settled`
   * follows, with `wasParked` true, once the call's answer is journaled (wherever the person answered).
   */
  waiting(call: CallRef, inboxId: string, reason: string): void;
}
