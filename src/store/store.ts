import type { ToolAnswer } from '../tools/result.js';

/**
 * Where Wardrik keeps what must outlive a call: the journal of every call's state, parked calls
 * (the inbox), remembered results, per-agent spend and each run's labels.
 *
 * Ordering and safety: the runner writes a call's `started` state before the tool runs and its answer
 * before the answer is returned, so a crash between them is visible (see recovery). Every state change
 * is a compare-and-set (`expected` state), which is what keeps two callers — two approvals, two nodes —
 * from both running one call. A method that cannot write must throw: the runner then does not run
 * the call (fail closed).
 */
export interface Store {
  getCall(run: string, call: string): Promise<CallRecord | undefined>;
  /** Writes `record` if the call's current state is `expected` (`undefined`: no record yet); false if not. */
  writeCall(record: CallRecord, expected: CallState | undefined): Promise<boolean>;
  /**
   * Calls in `state`, oldest `updatedAt` first (ties in the order they were first written), at most
   * `limit`. Recovery reads `started` calls with it: those a crash left in flight.
   */
  listCalls(options: { readonly state: CallState; readonly limit?: number }): Promise<CallRecord[]>;

  getInboxItem(id: string): Promise<InboxRecord | undefined>;
  /** Pending items, oldest first; `all` includes answered ones. */
  listInbox(options?: { readonly all?: boolean }): Promise<InboxRecord[]>;
  putInboxItem(item: InboxRecord): Promise<void>;
  /** Replaces the item if its status is still `expected`; false if someone answered first. */
  updateInboxItem(item: InboxRecord, expected: InboxStatus): Promise<boolean>;

  getRemembered(key: string, now: number): Promise<RememberedRecord | undefined>;
  putRemembered(record: RememberedRecord): Promise<void>;
  /** Deletes remembered results that expired at or before `now`; returns how many. */
  pruneRemembered(now: number): Promise<number>;

  /** Adds to an agent's spend and returns the new total. */
  addSpend(agent: string, usd: number): Promise<number>;
  getSpend(agent: string): Promise<number>;

  /** Adds labels to a run and returns those that were new. */
  addLabels(run: string, labels: readonly string[]): Promise<readonly string[]>;
  getLabels(run: string): Promise<readonly string[]>;

  close(): Promise<void>;
}

/**
 * A call's state: `started` is written before the tool runs; `succeeded` and `failed` are final (a
 * finished call is never run again); `parked` waits in the inbox.
 */
export type CallState = 'started' | 'succeeded' | 'failed' | 'parked';

export interface CallRecord {
  readonly run: string;
  readonly call: string;
  readonly agent: string;
  /** `toolset/tool`, or the unknown name the model asked for. */
  readonly tool: string;
  readonly arguments: unknown;
  readonly idempotencyKey: string;
  readonly state: CallState;
  readonly attempt: number;
  readonly answer?: ToolAnswer;
  readonly inboxId?: string;
  readonly updatedAt: number;
}

export type InboxKind = 'approval' | 'park' | 'in_doubt';
export type InboxStatus = 'pending' | 'approved' | 'denied' | 'answered';

/** A parked call waiting for (or answered by) a person. */
export interface InboxRecord {
  readonly id: string;
  readonly kind: InboxKind;
  readonly status: InboxStatus;
  readonly agent: string;
  readonly run: string;
  readonly call: string;
  /** `toolset/tool` */
  readonly tool: string;
  readonly arguments: unknown;
  /** SHA-256 of the arguments: an approval is bound to exactly these. */
  readonly digest: string;
  readonly labels: readonly string[];
  readonly reason: string;
  readonly createdAt: number;
  /** The agent's budget when the call parked; checked again before an approved call runs. */
  readonly budgetUsd?: number;
  readonly by?: string;
  readonly answeredAt?: number;
}

/** A result kept under its idempotency key (`@Idempotent({ remember: true })`). */
export interface RememberedRecord {
  readonly key: string;
  readonly digest: string;
  readonly answer: ToolAnswer;
  readonly expiresAt: number;
}
