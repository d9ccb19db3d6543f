import type { Clock, Timers } from '../clock.js';
import { sleep } from '../runner/transient.js';
import type { Store } from '../store/store.js';
import type { ToolAnswer } from '../tools/result.js';

/** How long and how a held call waits for a person's answer. */
export interface WaitOptions {
  /** Where the wait reads the time and sets its timers. */
  readonly clock: Clock;
  readonly timers: Timers;
  readonly waitMs: number;
  /** How often the journal is read for the answer. */
  readonly checkMs: number;
  /** How often `onProgress` is called while waiting. */
  readonly progressMs: number;
  /** Stops the wait (the client cancelled or went away); the call stays parked. */
  readonly signal: AbortSignal;
  /** Called every `progressMs` with how many times it was called before (a progress notification). */
  readonly onProgress?: (count: number) => void;
  /** The inbox item the call waits on. */
  readonly inboxId?: string;
  /**
   * Runs approved calls this node offers (the runner's recovery). Called when the item was approved
   * elsewhere (`wardrik approve` in another process, whose node lacks the tool) and the call has not
   * run yet, so the waiting client need not wait for the next periodic recovery; at most once a second.
   */
  readonly runApproved?: () => Promise<unknown>;
}

const RUN_APPROVED_EVERY_MS = 1_000;

/**
 * Waits for a parked call's final answer: resolves with it once the call's journal entry has one (a
 * person denied or answered it, or it ran after an approval, on this node or any other that offers the
 * tool), or with `undefined` when `waitMs` passes or the wait is stopped. It reads the journal rather
 * than listening for events: the answer may be written by another node, and events are only reports.
 */
export async function awaitAnswer(
  store: Store,
  run: string,
  call: string,
  options: WaitOptions,
): Promise<ToolAnswer | undefined> {
  const { signal, clock, timers } = options;
  const until = clock.now() + options.waitMs;
  let progressAt = clock.now() + options.progressMs;
  let sent = 0;
  let runAt = 0;
  for (;;) {
    const record = await store.getCall(run, call);
    if (record?.answer !== undefined && (record.state === 'succeeded' || record.state === 'failed'))
      return record.answer;
    if (
      record?.state === 'parked' &&
      options.inboxId !== undefined &&
      options.runApproved !== undefined &&
      clock.now() >= runAt
    ) {
      const item = await store.getInboxItem(options.inboxId);
      if (item?.status === 'approved') {
        runAt = clock.now() + RUN_APPROVED_EVERY_MS;
        // A failure here (the run busy on another node) leaves the call for the next try or recovery.
        await options.runApproved().catch(() => undefined);
        continue;
      }
    }
    const now = clock.now();
    if (signal.aborted || now >= until) return undefined;
    if (now >= progressAt) {
      options.onProgress?.(sent++);
      progressAt = now + options.progressMs;
    }
    if (!(await sleep(timers, Math.max(0, Math.min(options.checkMs, until - now, progressAt - now)), signal)))
      return undefined;
  }
}
