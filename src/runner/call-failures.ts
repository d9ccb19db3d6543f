import { StoreError } from '../errors.js';

/** Which call a message is about. */
export interface CallRef {
  readonly agent: string;
  readonly run: string;
  readonly call: string;
  readonly tool: string;
}

/** A store step a call cannot run without failed: says which call did not run, and why. */
export function storeFailure(p: CallRef, what: string, error: unknown): StoreError {
  return new StoreError(
    `Call "${p.call}" of run "${p.run}" (${p.tool}) did not run: could not ${what}: ${(error as Error).message} Fix the store, then send the call again.`,
    { cause: error, ran: false },
  );
}

/** The tool ran but the store failed after it: says so, and what becomes of the call. */
export function answerNotJournaled(p: CallRef, what: string, error: unknown): StoreError {
  return new StoreError(
    `Call "${p.call}" of run "${p.run}" (${p.tool}) ran, but Wardrik could not ${what}: ${(error as Error).message} ` +
      'Its journal entry stays "started": once the store is back, recovery runs it again if it is safe to repeat, or parks it for a person to say whether it happened.',
    { cause: error, ran: true },
  );
}

/** A call sent to a Wardrik whose store was opened read-only. */
export function readOnlyStore(p: CallRef): StoreError {
  return new StoreError(
    `Call "${p.call}" of run "${p.run}" (${p.tool}) did not run: the store was opened read-only, for inspecting a journal. Open it without readonly to run calls.`,
    { ran: false },
  );
}
