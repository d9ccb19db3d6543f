import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { AuditTrail } from '../audit/audit-trail.js';
import type { Clock, Timers } from '../clock.js';
import { StoreError } from '../errors.js';
import type { PersonAnswer } from '../policy/decision.js';
import type { Policy } from '../policy/policy.js';
import type { CallRecord, CallState, InboxRecord } from '../store/store.js';
import type { Store } from '../store/store.js';
import type { EventBus } from '../telemetry/event-bus.js';
import type { ToolCatalog } from '../tools/catalog.js';
import { checkArguments } from '../tools/call-tool.js';
import type { ToolAnswer } from '../tools/result.js';
import type { CheckResult } from '../tools/arguments.js';
import { runApprovedCall } from './approved-call.js';
import { takeOver } from './attempt.js';
import { BudgetHolds } from './budget-holds.js';
import { CallAttempts } from './call-attempts.js';
import type { CallDeps } from './call-deps.js';
import { CallsInFlight } from './calls-in-flight.js';
import type { CallRef } from './call-failures.js';
import { CallJournal } from './call-journal.js';
import { CallLimits } from './call-limits.js';
import type { CallListener } from './call-listener.js';
import { CallOutcomes } from './call-outcomes.js';
import { Deadlines } from './deadlines.js';
import type { JournalBatch } from './journal-batch.js';
import { runNewCall } from './new-call.js';
import { ParkedCalls } from './parked-calls.js';
import type { CallRequest } from './prepared-call.js';
import type { RecoveryReport } from './recovery-report.js';
import { recoveryPass, type Resumed } from './recovery.js';
import { RememberedKeys } from './remembered-keys.js';
import { runnerSettings, type RunnerOptions } from './runner-options.js';
import { RunGrants } from './run-grants.js';
import { LEASE_IDLE_MS, RunLeases } from './run-leases.js';
import { PassQueue } from './pass-queue.js';

export type { CallRequest } from './prepared-call.js';
export type { RecoveryReport } from './recovery-report.js';
export { RUNNER_DEFAULTS, type RunnerOptions } from './runner-options.js';

/**
 * Where every tool call enters: a new call goes through its stages (`runNewCall`: admit → decide →
 * hold budget → attempt → record), a call a person let go from stage 3 (`runApprovedCall`), and one a
 * crash left `started` is taken over (`takeOver`). Each stage writes its state to the store before the
 * effect it describes, so a crash leaves a readable journal. The runner counts calls in flight here,
 * so a duplicate joins the first and recovery leaves them alone.
 */
export class ToolRunner {
  /** Calls running in this process, so a duplicate joins the first. */
  private readonly inFlight = new CallsInFlight();
  private readonly deps: CallDeps;
  /** @internal Where retry jitter comes from (the `random` option); agents' model retries draw from it too. */
  readonly random: () => number;
  /** @internal The run leases this node holds; agent turns share them with their calls. */
  readonly leases: RunLeases;
  /** @internal Budget holds; agent turns hold for their model calls too. */
  readonly budgets: BudgetHolds;
  /** @internal Approvals a person gave for the rest of a run (`scope: 'run'`). */
  readonly grants: RunGrants;
  /** Recovery passes, one at a time. */
  private readonly recoveries: PassQueue<RecoveryReport>;

  /** @internal */
  constructor(
    private readonly catalog: ToolCatalog,
    private readonly store: Store,
    events: EventBus,
    policy: Policy,
    clock: Clock,
    /** @internal Where the runner sets its timers (deadlines, backoff, leases); agents' model retries wait on them too. */
    readonly timers: Timers,
    options: RunnerOptions = {},
  ) {
    const o = runnerSettings(options);
    this.random = options.random ?? Math.random;
    const settings = {
      timeoutMs: o.timeoutMs,
      attempts: o.attempts,
      baseDelayMs: o.baseDelayMs,
      maxDelayMs: o.maxDelayMs,
      random: this.random,
    };
    const node = options.node ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    const leases = new RunLeases(store, clock, timers, node, o.leaseMs, LEASE_IDLE_MS, (run) =>
      events.emit({
        type: 'warning',
        message: `Lost the lease on run "${run}": another node may take its calls over.`,
      }),
    );
    const outcomes = new CallOutcomes(store, events, leases);
    const journal = new CallJournal(store, outcomes, clock);
    this.leases = leases;
    this.budgets = new BudgetHolds(store, clock, timers, events);
    this.grants = new RunGrants(store, clock);
    this.deps = {
      catalog,
      store,
      events,
      policy,
      settings,
      journal,
      outcomes,
      leases,
      budgets: this.budgets,
      limits: new CallLimits(store, clock),
      grants: this.grants,
      remembered: new RememberedKeys(store, clock, timers, o.rememberMs),
      attempts: new CallAttempts(
        store,
        clock,
        timers,
        events,
        journal,
        new Deadlines(clock, timers),
        settings,
        (p, inboxId, reason) => outcomes.waiting(p, inboxId, reason),
      ),
      parked: new ParkedCalls(store, journal, outcomes, clock),
    };
    this.recoveries = new PassQueue(() => recoveryPass(this, store, events, clock));
  }

  /** @internal Records every verdict of the policy in `trail` from now on (`audit` in `Wardrik.create`). */
  auditTo(trail: AuditTrail): void {
    this.deps.audit = trail;
  }

  /**
   * @internal Who sent calls and must hear where they got to (the agent service), whatever `events$`
   * does: told when a call settles or parks here, and what it cost. One at a time; `undefined` removes it.
   */
  listen(listener: CallListener | undefined): void {
    this.deps.outcomes.listener = listener;
  }

  /** This node's name in run leases. */
  get node(): string {
    return this.leases.node;
  }

  /**
   * Finishes what a crash left behind: see `recoveryPass`. One pass at a time: asked while one
   * runs, it answers with the next, started once that one ends.
   */
  recover(): Promise<RecoveryReport> {
    if (this.store.readOnly === true)
      return Promise.reject(
        new StoreError(
          'Recovery writes to the journal, and this store was opened read-only (for inspection); nothing was recovered. Open it without readonly on a node that runs calls.',
        ),
      );
    return this.recoveries.run();
  }

  /** @internal Takes over a call found `started` (see `RecoveryHost.resume`). */
  resume(record: CallRecord): Promise<Resumed> {
    // Guard (running-here-skipped): recovery never takes a call this node is running.
    if (this.isRunning(record.run, record.call)) return Promise.resolve('skipped');
    const resuming = takeOver(this.deps, record);
    // A duplicate of the call sent meanwhile joins it, as it would join a call sent first.
    this.track(
      record.run,
      record.call,
      resuming.then(({ answer }) => answer ?? this.deps.journal.journaledAnswer(record.run, record.call)),
    );
    return resuming.then(({ resumed }) => resumed);
  }

  /** @internal Puts back the inbox item of a parked call that a crash lost (see `RecoveryHost`). */
  restoreInboxItem(record: CallRecord): Promise<void> {
    return this.deps.parked.restoreInboxItem(record);
  }

  /**
   * Writes a final answer for a parked call without running it (a person denied or answered it): the
   * journal keeps `person` beside the rule that parked it (`CallRecord.decidedBy`).
   * Returns the answer, or throws a `StoreError` when the journal cannot be written.
   * @internal
   */
  answerWithoutRunning(
    base: CallRef,
    answer: ToolAnswer,
    expected: CallState | undefined,
    person?: PersonAnswer,
  ): Promise<ToolAnswer> {
    return this.deps.parked.answerWithoutRunning(base, answer, expected, person);
  }

  /**
   * @internal Whether this node is running the call now: sent, recovered or approved here, or its
   * answer held in its run's batch, not yet durable (not tracked in `inFlight`, which would then never empty).
   */
  isRunning(run: string, call: string): boolean {
    return this.inFlight.has(run, call) || this.deps.journal.holdsAnswer(run, call);
  }

  /** @internal Whether this node offers the tool a policy names `toolset/tool`, so it can run its calls. */
  offers(ref: string): boolean {
    return this.catalog.get(ref) !== undefined;
  }

  /** @internal Checks arguments a person wrote for tool `ref` (`toolset/tool`); `undefined` when this node does not offer it. */
  checkFor(ref: string, raw: unknown): CheckResult | Promise<CheckResult> | undefined {
    const entry = this.catalog.get(ref);
    return entry === undefined ? undefined : checkArguments(entry.tool, raw);
  }

  /** @internal Stops background work (waiting for a recovery pass under way) and gives up the run leases this node holds. */
  async close(): Promise<void> {
    await this.recoveries.stop();
    await this.leases.close();
  }

  /**
   * Runs one call and returns the answer the model sees. A call id already in the journal is never run
   * again: its recorded answer comes back. Rejects only when the store fails (the call then did not run).
   */
  run(request: CallRequest): Promise<ToolAnswer> {
    const running = this.inFlight.get(request.run, request.call.id);
    // Guard (once-in-process): a duplicate sent while the call runs here joins it.
    if (running !== undefined) return running;
    const answer = runNewCall(this.deps, request);
    this.track(request.run, request.call.id, answer);
    return answer;
  }

  /**
   * @internal Commits the journal writes of run `run`'s calls with what `batch` holds (an agent's turn
   * driven here), and holds the answers of its new calls there; `undefined` ends it.
   */
  journalWith(run: string, batch: JournalBatch | undefined): void {
    this.deps.journal.batchWith(run, batch);
  }

  /**
   * Runs a parked call a person let go (see `runApprovedCall`); it counts as running here from then
   * on, so this node's recovery never takes it for a crashed one.
   * @internal
   */
  runApproved(item: InboxRecord, mark: () => Promise<void>): Promise<ToolAnswer> {
    const answer = runApprovedCall(this.deps, item, mark);
    if (!this.inFlight.has(item.run, item.call))
      this.track(
        item.run,
        item.call,
        answer.catch(() => this.deps.journal.journaledAnswer(item.run, item.call)),
      );
    return answer;
  }

  /** Counts a call as in flight here until `answer` resolves or rejects: a duplicate joins it, and recovery leaves it alone. */
  private track(run: string, call: string, answer: Promise<ToolAnswer>): void {
    this.inFlight.set(run, call, answer);
    const done = (): void => this.inFlight.delete(run, call, answer);
    void answer.then(done, done);
  }
}
