import type { Answerers } from '../policy/answerers.js';
import type { AuditLog } from './audit-log.js';
import type { ToolAnswer } from '../tools/result.js';

/**
 * Where Wardrik keeps what must outlive a call: the journal of every call's state, parked calls
 * (the inbox), per-agent spend, each run's labels and lease, agent turns and their steps. This is the
 * core a store implements: one write, `writeJournal`, and the reads. Every single write Wardrik makes
 * (a call's state, a step, a turn, spend, labels, a lease) is a batch of one through `writeJournal`
 * (see journal-writes.ts), so a store encodes each write once. What only some features need is in the
 * capability interfaces below (`RememberedResults`, `SpendHolds`, `Pruning`, `McpServerRecords`, and
 * `AuditLog` in audit-log.ts): a
 * store implements those it can, and Wardrik refuses at start-up, naming the capability, a feature whose
 * store lacks it.
 *
 * Ordering and safety: the runner writes a call's `started` state before the tool runs and its answer
 * before the answer is returned (an agent turn's call: before the model sees it, or with the turn's
 * next commit when the call is safe to repeat), so a crash between them is visible (see recovery). Every
 * state change is a compare-and-set (`expected` state), which is what keeps two callers — two approvals,
 * two nodes — from both running one call. A method that cannot write must throw: the runner then does not
 * run the call (fail closed).
 *
 * Lifecycle: Wardrik calls nothing before its first read or write (a store that connects does so then, or
 * in a `start` of its own); `close()` comes last, once, after every batch handed in has been answered.
 */
export interface Store {
  /**
   * Several journal writes committed together: one transaction, so one commit (on PostgreSQL one
   * statement, so one round trip). Each write is answered in order: true when it took, false when a
   * compare-and-set was refused (see `JournalWrite`), which does not undo the others. At most one write
   * per call and per step in a batch. Resolves once the batch is durable.
   */
  writeJournal(writes: readonly JournalWrite[]): Promise<boolean[]>;

  getCall(run: string, call: string): Promise<CallRecord | undefined>;
  /**
   * Calls in `state`, oldest `updatedAt` first (ties in the order they were first written), at most
   * `limit`. Recovery reads `started` calls with it: those a crash left in flight. With `run`, only that
   * run's calls (in `state` if given), in the order they were first written: the run's timeline.
   */
  listCalls(options: CallListOptions): Promise<CallRecord[]>;
  /**
   * Runs, most recent activity first, at most `limit`: every run with journaled calls or an agent turn,
   * only `agent`'s when given. For looking into runs (`wardrik runs`); not on any call's path.
   */
  listRuns(options?: { readonly agent?: string; readonly limit?: number }): Promise<RunSummary[]>;

  getInboxItem(id: string): Promise<InboxRecord | undefined>;
  /** Pending items, oldest first; `all` includes answered ones. */
  listInbox(options?: { readonly all?: boolean }): Promise<InboxRecord[]>;
  putInboxItem(item: InboxRecord): Promise<void>;
  /** Replaces the item if its status is still `expected`; false if someone answered first. */
  /**
   * Replaces the item if it is still `expected` (and, given `expectedRevision`, its stored `revision`,
   * 0 when absent, is that one); false when another write came first.
   */
  updateInboxItem(item: InboxRecord, expected: InboxStatus, expectedRevision?: number): Promise<boolean>;

  /**
   * What the agent has spent, in micro-dollars (millionths of a dollar), so ten $0.10 costs add up to
   * exactly $1: the sum of its journaled `spend` writes.
   */
  getSpend(agent: string): Promise<number>;
  /** The run's labels, in the order they were first written. */
  getLabels(run: string): Promise<readonly string[]>;

  getTurn(run: string): Promise<TurnRecord | undefined>;
  /** Turns, oldest `createdAt` first, filtered by agent and/or status, at most `limit`. */
  listTurns(options: {
    readonly agent?: string;
    readonly status?: TurnStatus;
    readonly limit?: number;
  }): Promise<TurnRecord[]>;
  /** A turn's steps in index order. */
  listSteps(run: string): Promise<StepRecord[]>;
  /**
   * The agent's last `limit` finished turns (`done`, `failed`, `budget_spent`), oldest `updatedAt`
   * first: the conversation its next turn goes on with. Reads only those turns, through an index,
   * however many the agent has had.
   */
  lastFinishedTurns(agent: string, limit: number): Promise<TurnRecord[]>;

  close(): Promise<void>;

  /**
   * True for a store opened to inspect a journal, which refuses every write (`SqliteStore` with
   * `readonly: true`). Wardrik then runs no recovery, and a call fails at once, saying why.
   */
  readonly readOnly?: boolean;

  /**
   * The same journal operations without a promise, for a store whose writes are synchronous (memory,
   * SQLite); absent otherwise. The runner uses them on every call's path when present, so a store that
   * wraps another must wrap these too, or offer none: passed through, they bypass its `writeJournal`.
   */
  readonly sync?: SyncJournal;
}

/**
 * Results kept under an idempotency key (`@Idempotent({ remember: true })`) and the claims that make
 * one call run per key across nodes; Wardrik also keeps a run's approvals for the rest of the run
 * (`scope: 'run'`) and the webhook deliveries it made this way. A store without it refuses those features.
 */
export interface RememberedResults {
  getRemembered(key: string, now: number): Promise<RememberedRecord | undefined>;
  /** Remembers a result under its key, ending the key's claim if any. */
  putRemembered(record: RememberedRecord): Promise<void>;
  /**
   * Claims a key before its tool runs, so one call runs per key across nodes. `claimed` when this call
   * may run: nobody holds the key, the claim on it expired, or it is `claim.owner`'s own (a call taken
   * over after its node died). Otherwise what holds the key: its remembered result, or another call's
   * live claim, whose result the caller waits for. One atomic step: of racing claimers one wins.
   */
  claimRemembered(claim: RememberedClaim, now: number): Promise<ClaimOutcome>;
  /** Ends `owner`'s claim on `key` without a result (its call failed), so a later call may run the key. */
  releaseRemembered(key: string, owner: string): Promise<void>;
  /** Deletes remembered results and claims that expired at or before `now`; returns how many results. */
  pruneRemembered(now: number): Promise<number>;
}

/** Parts of an agent's budget held while calls run, so concurrent calls cannot overspend it (an agent's `budget`). */
export interface SpendHolds {
  /**
   * Holds part of an agent's budget for a call about to start, so concurrent calls cannot all start on
   * one remaining dollar. One atomic step. `held` while the agent's spend plus its live holds is below
   * `budgetMicroUsd`, holding `maxMicroUsd`, else the most `tool` has cost so far; `spent` when the
   * budget is used up; `busy` when neither amount is known and another call of `tool` for the agent
   * holds (a tool of unknown cost runs one call at a time until its first cost is known).
   */
  holdSpend(hold: SpendHold, now: number): Promise<HoldOutcome>;
  /**
   * Ends a hold once its call is done. `costMicroUsd` is what the call cost when its tool ran (kept as
   * `tool`'s cost so far if the most yet); `undefined` when it did not run, which tells nothing.
   */
  releaseSpend(agent: string, id: string, tool: string, costMicroUsd: number | undefined): Promise<void>;
}

/** Deleting what finished runs left behind (`retention` in `Wardrik.create`, `wardrik.prune()`). */
export interface Pruning {
  /**
   * Deletes what finished runs left behind, at most `limit` runs a pass (see `PruneOptions`), and says
   * what it removed. A run is finished when its turn ended (`done`, `failed`, `budget_spent`) or, for a
   * run without a turn, when all its calls are final; it goes once its last write is before `before`.
   * A run with a parked or in-doubt call is never deleted, nor is a pending inbox item.
   */
  prune(options: PruneOptions): Promise<PruneReport>;
}

/** MCP servers added at runtime, and what an MCP hub keeps beside them (pinned definitions, sign-ins). */
export interface McpServerRecords {
  /** The MCP servers added at runtime to hub `hub`, sorted by name. */
  listMcpServers(hub: string): Promise<McpServerRecord[]>;
  /** Adds or replaces a runtime MCP server. */
  putMcpServer(record: McpServerRecord): Promise<void>;
  /** Removes a runtime MCP server; false if there was none. */
  deleteMcpServer(hub: string, name: string): Promise<boolean>;
}

/** A store with every capability: what `MemoryStore`, `SqliteStore` and `PostgresStore` are. */
export type FullStore = Store & RememberedResults & SpendHolds & Pruning & McpServerRecords & AuditLog;

/**
 * A call's hot journal operations, answered at once. With them a call reaches its tool without
 * yielding in between, so of many calls made together the first are under way (an MCP server working
 * on them) while the rest are still being prepared. Each must behave exactly as its `Store` namesake.
 */
export interface SyncJournal {
  /** `writeJournal([{ call: record, expected }])`, answered with its one result. */
  writeCall(record: CallRecord, expected: CallState | undefined): boolean;
  getLabels(run: string): readonly string[];
  /** `Store.writeJournal`, committed before it returns; absent where a wrapper offers only the two above. */
  writeJournal?(writes: readonly JournalWrite[]): boolean[];
}

/**
 * One write of a batch (`Store.writeJournal`), and how it is answered:
 * - `call`: writes the record if the call's current state is `expected` (`undefined`: no record yet).
 *   A `started` call written `started` again must also raise its `attempt`: a compare-and-set that does
 *   not advance the record would let a second taker (a retry, a recovery) through.
 * - `step`: records a turn's step `index` if it has none yet (a step is written once).
 * - `spend`: adds to an agent's spend (integer micro-dollars); always true.
 * - `labels`: adds labels an answer brought its run (those it has already are left as they are); always true.
 * - `turn`: writes a turn if its stored `version` is `expectedVersion` (`undefined`: none yet);
 *   `turn.version` is the next one.
 * - `lease`: takes or renews the lease on a run for `node`, for `ttlMs` from now. Takes when nobody holds
 *   the run, its lease has expired, or `node` holds it already. Only the holder runs a run's calls and
 *   turns, so a run whose node died is taken over once its lease expires (D3). Both times, the lease's end
 *   and now, are read from the store's one clock, never from a node's: nodes whose clocks disagree must not
 *   see a live lease as expired (PostgreSQL: the server's clock; SQLite and memory: the host's, or the
 *   store's `clock` option). With `whileStarted`, only while that call of the run is still `started` (read
 *   in the same transaction): recovery takes a run over for a call left in flight, never for one answered
 *   since it was listed (it would hold a live run for nothing, and its node's next call would be refused).
 * - `release`: gives a run's lease up, if `node` holds it; always true.
 *
 * A turn's start (its lease and record) and its end (its last answers and record) are one commit each.
 * Spend, labels and a lease given up are always answered true: the money was spent, the answer seen,
 * whoever journals the step. A spend is counted once: it is in the batch's one transaction, which a store
 * never sends again once it may have committed.
 */
export type JournalWrite =
  | { readonly call: CallRecord; readonly expected: CallState | undefined }
  | { readonly step: StepRecord }
  | { readonly spend: { readonly agent: string; readonly microUsd: number } }
  | { readonly labels: { readonly run: string; readonly labels: readonly string[] } }
  | { readonly turn: TurnRecord; readonly expectedVersion: number | undefined }
  | {
      readonly lease: {
        readonly run: string;
        readonly node: string;
        readonly ttlMs: number;
        readonly whileStarted?: string;
      };
    }
  | { readonly release: { readonly run: string; readonly node: string } };

/** What `Pruning.prune` takes. */
export interface PruneOptions {
  /** Finished runs whose last write is older than this time (ms since the epoch) go. */
  readonly before: number;
  /** The most runs one pass deletes (a small batch keeps the store free for calls); all when absent. */
  readonly limit?: number;
  /** Counts what would go and deletes nothing. */
  readonly dryRun?: boolean;
}

/** What `Pruning.prune` removed (or, on a dry run, would remove). */
export interface PruneReport {
  readonly runs: number;
  readonly turns: number;
  readonly steps: number;
  readonly calls: number;
  /** The runs' answered inbox items. */
  readonly inbox: number;
  readonly labels: number;
  /** Run leases and budget holds that lapsed before `before`. */
  readonly leases: number;
  readonly holds: number;
}

/** What `listCalls` takes: a state, a run, or both. */
export type CallListOptions =
  | { readonly state: CallState; readonly run?: string; readonly limit?: number }
  | { readonly state?: CallState; readonly run: string; readonly limit?: number };

/** One run as `listRuns` sums it up from its calls and its turn. */
export interface RunSummary {
  readonly run: string;
  readonly agent: string;
  /** The agent turn's status; absent for a run with calls only (made through `runner.run`). */
  readonly status?: TurnStatus;
  /** Calls journaled in the run, and how many of them are parked now. */
  readonly calls: number;
  readonly parked: number;
  /** What the run's tools reported spending (`ctx.cost`), summed over its calls. */
  readonly costUsd: number;
  /** The earliest and latest time written in the run (its turn's creation, its calls' updates). */
  readonly firstAt: number;
  readonly lastAt: number;
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
  /** US dollars the tool reported (`ctx.cost`) on this call, over all its attempts. */
  readonly costUsd?: number;
  /**
   * The rule or policy that decided the call (`Decision.rule`: `rule 2 (orders/* allow)`, `cedar policy
   * "refund-small"`), and for a call a person answered, who did: `rule 3 (orders/* ask); approved by alice`.
   * Absent when no policy decided it (an unknown tool, bad arguments), and for calls journaled before
   * Wardrik kept it (SQLite schema 15, PostgreSQL 12): unknown.
   */
  readonly decidedBy?: string;
  readonly updatedAt: number;
}

/**
 * `approval`, `park` and `in_doubt` are parked calls; `tool_change` is a call of an MCP tool whose
 * definition changed (approving it accepts the new one); `question` is an MCP server's elicitation
 * during a call, and `authorize` a sign-in an MCP server needs (neither is a parked call).
 */
export type InboxKind = ParkedKind | 'question' | 'authorize';
/** The kinds of inbox item that are parked calls. */
export type ParkedKind = 'approval' | 'park' | 'in_doubt' | 'tool_change';
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
  /** The tool's input schema when the call parked, so edited arguments can be checked on any node. */
  readonly inputSchema?: object;
  readonly by?: string;
  readonly answeredAt?: number;
  /** What the person is shown besides the reason: what changed (`tool_change`), the question (`question`), the sign-in (`authorize`). */
  readonly detail?: unknown;
  /** A `question`'s answer, read by the node whose call waits for it. */
  readonly response?: unknown;
  /** The arguments a person approved instead of `arguments`, and who changed them; `arguments` stay as sent. */
  readonly edited?: { readonly arguments: unknown; readonly digest: string; readonly by?: string };
  /** `run`: the approval also lets later calls of the tool in this run go, within `allowIf`. */
  readonly scope?: 'call' | 'run';
  /** Argument fields later calls must match for a `run` approval to let them go, such as `['orderId']`. */
  readonly allowIf?: readonly string[];
  /** When the item was escalated for having waited `escalateAfterMs`. */
  readonly escalatedAt?: number;
  /** Who may answer, as the rule that asked says (`approvers`, `separateFrom`, `quorum`); anyone signed in when absent. */
  readonly answerers?: Answerers;
  /** The person the call was made for (`onBehalfOf`, the MCP caller, the Nest user). */
  readonly requester?: string;
  /** Approvals given so far toward a `quorum`, each for the arguments' digest the person saw. */
  readonly approvals?: readonly InboxApproval[];
  /** Raised by every write through the inbox, so two answers that read the same item cannot both count (0 when absent). */
  readonly revision?: number;
  /** For an approval: the rule or policy that asked, as the decision named it (`rule 2 (orders/* ask)`, `cedar policy "refunds"`). */
  readonly decidedBy?: string;
}

/** One person's approval toward an item's quorum. */
export interface InboxApproval {
  readonly by: string;
  /** The digest of the arguments they approved: the item's, or the changed ones'. */
  readonly digest: string;
  readonly at: number;
}

/** A call's claim on an idempotency key while its tool runs (`@Idempotent({ remember: true })`). */
export interface RememberedClaim {
  readonly key: string;
  /** SHA-256 of the arguments: another call with the same key and other arguments gets a conflict. */
  readonly digest: string;
  /** Which call claims it: `JSON.stringify([run, call])`. */
  readonly owner: string;
  /** When the claim lapses if its call never ends (its node died and nobody took the call over). */
  readonly expiresAt: number;
}

export type ClaimOutcome =
  | { readonly claimed: true }
  | { readonly claimed: false; readonly remembered: RememberedRecord }
  | { readonly claimed: false; readonly heldBy: string; readonly digest: string };

/** Part of an agent's budget held for one call (see `SpendHolds.holdSpend`). */
export interface SpendHold {
  readonly agent: string;
  /** The call holding: `JSON.stringify([run, call])`. */
  readonly id: string;
  /** `toolset/tool`: whose cost so far is held when the tool declares no maximum. */
  readonly tool: string;
  readonly budgetMicroUsd: number;
  /** The tool's declared maximum cost a call (`@Cost({ maxUsd })`), in micro-dollars. */
  readonly maxMicroUsd?: number;
  /** When the hold lapses if its call never ends (its node died). */
  readonly expiresAt: number;
}

export type HoldOutcome = 'held' | 'spent' | 'busy';

/** A result kept under its idempotency key (`@Idempotent({ remember: true })`). */
export interface RememberedRecord {
  readonly key: string;
  readonly digest: string;
  readonly answer: ToolAnswer;
  readonly expiresAt: number;
}

export type TurnStatus = 'running' | 'parked' | 'done' | 'failed' | 'budget_spent';

/** The statuses of a turn that has ended: it is never driven again. */
export const FINISHED_TURNS: ReadonlySet<TurnStatus> = new Set(['done', 'failed', 'budget_spent']);

/** One agent turn (`agent.send`): its run id, who runs it, where it stands. `data` is the agent loop's own JSON. */
export interface TurnRecord {
  readonly run: string;
  readonly agent: string;
  readonly status: TurnStatus;
  /** Increases by one on every write; the compare-and-set key. */
  readonly version: number;
  readonly data: unknown;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** One journaled step of a turn, such as a model response; `data` is JSON. */
export interface StepRecord {
  readonly run: string;
  readonly index: number;
  readonly data: unknown;
  readonly createdAt: number;
}

/** A runtime MCP server: its options as plain data (never secrets: a credential is named, not stored). */
export interface McpServerRecord {
  readonly hub: string;
  readonly name: string;
  readonly options: unknown;
  readonly updatedAt: number;
}
