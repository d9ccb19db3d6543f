import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Clock } from '../clock.js';
import { StoreError } from '../errors.js';
import type { Decision, Policy } from '../policy/policy.js';
import type { CallRecord, CallState, InboxRecord, ParkedKind, Store } from '../store/store.js';
import type { EventBus } from '../telemetry/event-bus.js';
import type { CatalogEntry, ToolCatalog } from '../tools/catalog.js';
import { answerFrom, checkArguments, invalidArgumentsAnswer } from '../tools/call-tool.js';
import { errorAnswer, type ToolAnswer } from '../tools/result.js';
import type { CheckResult } from '../tools/arguments.js';
import { isRepeatable } from '../tools/tool.js';
import { toMicroUsd } from '../money.js';
import { BudgetHolds } from './budget-holds.js';
import { CallAttempts } from './call-attempts.js';
import { CallAdmission } from './call-admission.js';
import { CallsInFlight } from './calls-in-flight.js';
import { answerNotJournaled, storeFailure, type CallRef } from './call-failures.js';
import { recordedAnswer, CallJournal } from './call-journal.js';
import type { CallListener } from './call-listener.js';
import { CallOutcomes } from './call-outcomes.js';
import { Deadlines } from './deadlines.js';
import { argumentsDigest } from './digest.js';
import type { JournalBatch } from './journal-batch.js';
import { ParkedCalls } from './parked-calls.js';
import {
  budgetAnswer,
  deniedAnswer,
  fromEarlierTurns,
  IN_DOUBT,
  includesAll,
  ref,
  stoppedAnswer,
  unknownActionAnswer,
  type Attempted,
  type CallRequest,
  type PreparedCall,
} from './prepared-call.js';
import { recoveryPass, type RecoveryReport, type Resumed } from './recovery.js';
import { RememberedKeys } from './remembered-keys.js';
import { runnerSettings, type RunnerOptions } from './runner-options.js';
import { RunGrants } from './run-grants.js';
import { RunLeases } from './run-leases.js';
import { SerialPasses } from './serial-passes.js';

export type { CallRequest } from './prepared-call.js';
export type { RecoveryReport } from './recovery.js';
export { RUNNER_DEFAULTS, type RunnerOptions } from './runner-options.js';

/**
 * The pipeline every tool call goes through: resolve, check, budget, decide, journal `started`, run
 * (time-out, retries), journal the answer, labels and costs. Each step is explicit and its state is
 * written to the store before the effect it describes, so a crash leaves a readable journal.
 */
export class ToolRunner {
  /** Calls running in this process, so a duplicate joins the first. */
  private readonly inFlight = new CallsInFlight();
  private readonly remembering: RememberedKeys;
  private readonly timeoutMs: number;
  private readonly attempts: number;
  private readonly maxDelayMs: number;
  /** @internal Where retry jitter comes from (the `random` option); agents' model retries draw from it too. */
  readonly random: () => number;
  /** @internal The run leases this node holds; agent turns share them with their calls. */
  readonly leases: RunLeases;
  /** @internal Budget holds; agent turns hold for their model calls too. */
  readonly budgets: BudgetHolds;
  /** @internal Approvals a person gave for the rest of a run (`scope: 'run'`). */
  readonly grants: RunGrants;
  /** The store refuses writes (opened to inspect a journal): no call starts. */
  private readonly readOnly: boolean;
  private readonly outcomes: CallOutcomes;
  private readonly journal: CallJournal;
  private readonly tries: CallAttempts;
  private readonly parked: ParkedCalls;
  private readonly admission: CallAdmission;
  /** Recovery passes, one at a time. */
  private readonly recoveries = new SerialPasses(() => recoveryPass(this, this.store, this.events, this.clock));

  /** @internal */
  constructor(
    private readonly catalog: ToolCatalog,
    private readonly store: Store,
    private readonly events: EventBus,
    policy: Policy,
    private readonly clock: Clock,
    options: RunnerOptions = {},
  ) {
    const o = runnerSettings(options);
    this.timeoutMs = o.timeoutMs;
    this.attempts = o.attempts;
    const baseDelayMs = o.baseDelayMs;
    this.maxDelayMs = o.maxDelayMs;
    const rememberMs = o.rememberMs;
    this.random = options.random ?? Math.random;
    this.budgets = new BudgetHolds(store, clock);
    this.grants = new RunGrants(store, clock);
    this.remembering = new RememberedKeys(store, clock, rememberMs);
    this.readOnly = store.readOnly === true;
    const node = options.node ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    this.leases = new RunLeases(store, clock, node, o.leaseMs, (run) =>
      events.emit({ type: 'warning', message: `Lost the lease on run "${run}": another node may take its calls over.` }),
    );
    this.outcomes = new CallOutcomes(store, events, this.leases);
    this.journal = new CallJournal(store, this.outcomes, clock);
    const settings = { timeoutMs: this.timeoutMs, attempts: this.attempts, baseDelayMs, maxDelayMs: this.maxDelayMs, random: this.random };
    this.tries = new CallAttempts(store, events, this.journal, new Deadlines(), settings, (p, inboxId, reason) => this.outcomes.waiting(p, inboxId, reason));
    this.parked = new ParkedCalls(store, this.journal, this.outcomes, clock);
    this.admission = new CallAdmission(catalog, store, events, policy, this.journal, this.leases, (request, entry, base, value, args, labels, decision) =>
      this.act(request, entry, base, value, args, labels, decision),
    );
  }

  /**
   * @internal Who sent calls and must hear where they got to (the agent service), whatever `events$`
   * does: told when a call settles or parks here, and what it cost. One at a time; `undefined` removes it.
   */
  listen(listener: CallListener | undefined): void {
    this.outcomes.listener = listener;
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
    if (this.readOnly) return Promise.reject(new StoreError('Recovery writes to the journal, and this store was opened read-only (for inspection); nothing was recovered. Open it without readonly on a node that runs calls.'));
    return this.recoveries.run();
  }

  /** @internal Takes over a call found `started` (see `RecoveryHost.resume`). */
  resume(record: CallRecord): Promise<Resumed> {
    if (this.inFlight.has(record.run, record.call) || this.heldAnswer(record.run, record.call)) return Promise.resolve('skipped');
    const resuming = this.resumeLeased(record);
    // A duplicate of the call sent meanwhile joins it, as it would join a call sent first.
    this.track(record.run, record.call, resuming.then(([, answer]) => answer ?? this.journal.answerOfWinner(record.run, record.call)));
    return resuming.then(([resumed]) => resumed);
  }

  private async resumeLeased(record: CallRecord): Promise<[Resumed, ToolAnswer?]> {
    const entry = this.catalog.get(record.tool);
    if (entry === undefined) return ['gone'];
    // Only while the call is still in flight: one answered since it was listed leaves the run to its node (issue 27).
    if (!(await this.leases.acquire(record.run, record.call))) return ['skipped'];
    try {
      const current = await this.store.getCall(record.run, record.call);
      if (current?.state !== 'started') return ['gone'];
      const checking = await checkArguments(entry.tool, current.arguments);
      const p: PreparedCall = {
        agent: current.agent,
        run: current.run,
        call: current.call,
        tool: entry.ref,
        entry,
        args: checking.ok ? checking.value : current.arguments,
        arguments: current.arguments,
        idempotencyKey: current.idempotencyKey,
        labels: await this.store.getLabels(current.run),
        budgetUsd: undefined,
        spent: { microUsd: toMicroUsd(current.costUsd ?? 0) },
      };
      // The next attempt: the journal refuses a started-to-started write that does not advance it, so
      // of two nodes taking the call over at once only one runs it.
      if (checking.ok && isRepeatable(entry.tool)) return ['rerun', await this.execute(p, 'started', current.attempt + 1)];
      return ['inDoubt', await this.parked.park(p, 'in_doubt', IN_DOUBT, 'started')];
    } finally {
      this.leases.release(record.run);
    }
  }

  /** @internal Puts back the inbox item of a parked call that a crash lost (see `RecoveryHost`). */
  restoreInboxItem(record: CallRecord): Promise<void> {
    return this.parked.restoreInboxItem(record);
  }

  /**
   * Writes a final answer for a parked call without running it (a person denied or answered it).
   * Returns the answer, or throws a `StoreError` when the journal cannot be written.
   * @internal
   */
  answerWithoutRunning(base: CallRef, answer: ToolAnswer, expected: CallState | undefined): Promise<ToolAnswer> {
    return this.parked.answerWithoutRunning(base, answer, expected);
  }

  /** @internal Whether this node is running the call now: sent, recovered or approved here. */
  isRunning(run: string, call: string): boolean {
    return this.inFlight.has(run, call) || this.heldAnswer(run, call);
  }

  /** @internal Whether this node offers the tool a policy names `toolset/tool`, so it can run its calls. */
  offers(ref: string): boolean {
    return this.catalog.get(ref) !== undefined;
  }

  /** @internal Stops background work (waiting for a recovery pass under way) and gives up the run leases this node holds. */
  async close(): Promise<void> {
    await this.recoveries.stop();
    await this.leases.close();
  }

  /**
   * Runs one call and returns the answer the model sees. A call id already in the journal is never run
   * again: its recorded answer comes back. Rejects only when the store fails (the call then did not run).
   * A synchronous tool may run before this returns, so one that calls `run` again with its own call id
   * gets a conflict rather than joining itself.
   */
  run(request: CallRequest): Promise<ToolAnswer> {
    const running = this.inFlight.get(request.run, request.call.id);
    if (running !== undefined) return running;
    let answer: Promise<ToolAnswer>;
    try {
      answer = this.admission.start(request);
    } catch (error) {
      answer = Promise.reject(error); // a store that throws at once (its synchronous journal): as if it rejected
    }
    this.track(request.run, request.call.id, answer);
    return answer;
  }

  /**
   * @internal Commits the journal writes of run `run`'s calls with what `batch` holds (an agent's turn
   * driven here), and holds the answers of its new calls there; `undefined` ends it.
   */
  journalWith(run: string, batch: JournalBatch | undefined): void {
    this.journal.batchWith(run, batch);
  }

  /**
   * Whether the call's answer is held in its run's batch, not yet durable: it counts as running here,
   * so recovery leaves it alone. Not tracked in `inFlight`, which would then never empty (see there).
   */
  private heldAnswer(run: string, call: string): boolean {
    return this.journal.batchOf(run)?.holdsCall(call) === true;
  }

  /** Counts a call as in flight here until `answer` resolves or rejects: a duplicate joins it, and recovery leaves it alone. */
  private track(run: string, call: string, answer: Promise<ToolAnswer>): void {
    this.inFlight.set(run, call, answer);
    const done = (): void => this.inFlight.delete(run, call, answer);
    void answer.then(done, done);
  }

  /**
   * Runs a parked call a person let go (approved, or said an in-doubt call did not happen). `mark`
   * records the person's answer first (its compare-and-set makes one answer count); the call counts as
   * running here from then on, so this node's recovery never takes it for a crashed one. When another
   * node holds the run, the call is left approved and answers `parked`: a recovery runs it once the run is free.
   * @internal
   */
  runApproved(item: InboxRecord, mark: () => Promise<void>): Promise<ToolAnswer> {
    const answer = this.runApprovedLeased(item, mark);
    if (!this.inFlight.has(item.run, item.call)) this.track(item.run, item.call, answer.catch(() => this.journal.answerOfWinner(item.run, item.call)));
    return answer;
  }

  private async runApprovedLeased(item: InboxRecord, mark: () => Promise<void>): Promise<ToolAnswer> {
    await mark();
    if (!(await this.leases.acquire(item.run))) {
      const reason = `A person let this call go; run "${item.run}" is busy on another node right now, so the next recovery runs it once the run is free.`;
      return { status: 'parked', kind: item.kind as ParkedKind, inboxId: item.id, reason, labels: item.labels };
    }
    try {
      const entry = this.catalog.get(item.tool);
      const base = { agent: item.agent, run: item.run, call: item.call, tool: item.tool };
      if (entry === undefined) {
        return await this.parked.answerWithoutRunning(base, errorAnswer('tool_not_found', `Tool "${item.tool}" is no longer available, so the call did not run.`), 'parked');
      }
      // Arguments a person changed run instead of the model's; the answer says so.
      const sent = item.edited?.arguments ?? item.arguments;
      const checked = await checkArguments(entry.tool, sent);
      if (!checked.ok) return await this.parked.answerWithoutRunning(base, invalidArgumentsAnswer(entry.name, checked.issues), 'parked');
      const record = await this.store.getCall(item.run, item.call);
      const prepared: PreparedCall = {
        agent: item.agent,
        run: item.run,
        call: item.call,
        tool: entry.ref,
        entry,
        args: checked.value,
        arguments: sent,
        idempotencyKey: record?.idempotencyKey ?? `${item.run}:${item.call}`,
        labels: await this.store.getLabels(item.run),
        budgetUsd: item.budgetUsd,
        spent: { microUsd: 0 },
        edited: item.edited === undefined ? undefined : { original: item.arguments, arguments: sent, ...(item.edited.by === undefined ? {} : { by: item.edited.by }) },
      };
      const attempt = (record?.attempt ?? 0) + 1;
      if (item.budgetUsd === undefined) return await this.execute(prepared, 'parked', attempt);
      return await this.executeBudgeted(prepared, item.budgetUsd, 'parked', attempt, (refused) => this.parked.answerWithoutRunning(base, refused, 'parked'));
    } finally {
      this.leases.release(item.run);
    }
  }

  /**
   * The answer of a call the journal has already. One left `started`, with the same arguments, by a node
   * that no longer holds its run (this node holds the lease and is not running it) is taken over as
   * recovery takes it: a turn taken up after its node died sends its calls again, and must not hear that
   * a call nobody runs is "already running".
   */
  private async answerOrTakeOver(p: PreparedCall, expected: CallState | undefined): Promise<ToolAnswer> {
    const record = expected === undefined && !this.heldAnswer(p.run, p.call) ? await this.store.getCall(p.run, p.call) : undefined;
    const sameArguments = record !== undefined && (record.arguments === null || argumentsDigest(record.arguments) === argumentsDigest(p.arguments));
    if (record?.state === 'started' && record.answer === undefined && sameArguments) {
      const [, answer] = await this.resumeLeased(record);
      if (answer !== undefined) return answer;
    }
    return this.journal.answerOfWinner(p.run, p.call, p.arguments);
  }

  /** Acts on the policy's decision: run on `allow`, park on `ask`, and deny anything else. */
  private act(request: CallRequest, entry: CatalogEntry, base: CallRef, value: unknown, args: unknown, labels: readonly string[], decision: Decision): Promise<ToolAnswer> {
    const action = decision.action;
    switch (action) {
      case 'allow':
      case 'ask':
        break;
      case 'deny':
        return this.journal.writeEndedEarly(base, value, deniedAnswer(decision.rule), decision);
      default:
        return this.journal.writeEndedEarly(base, value, unknownActionAnswer(action, decision.rule), decision);
    }
    const prepared: PreparedCall = {
      agent: request.agent,
      run: request.run,
      call: base.call,
      tool: entry.ref,
      entry,
      args,
      arguments: value,
      idempotencyKey: request.idempotencyKey ?? `${request.run}:${base.call}`,
      labels,
      budgetUsd: request.budgetUsd,
      signal: request.signal,
      reporter: request.reporter,
      spent: { microUsd: 0 },
      decision,
    };
    if (action === 'ask') return this.askUnlessGranted(prepared, decision, request.earlierTurns);
    if (request.budgetUsd === undefined) return this.execute(prepared, undefined);
    return this.executeBudgeted(prepared, request.budgetUsd, undefined, 1, (refused) => this.journal.writeEndedEarly(base, value, refused, decision));
  }

  /** Parks a call the policy asks about, unless a person approved such calls for the rest of its run. */
  private async askUnlessGranted(p: PreparedCall, decision: Decision, earlier: CallRequest['earlierTurns']): Promise<ToolAnswer> {
    const granted = await this.grants.find({ agent: p.agent, run: p.run, tool: p.tool, arguments: p.arguments, labels: p.labels });
    if (granted === undefined) return this.parked.park(p, 'approval', `Needs approval (${decision.rule}).${fromEarlierTurns(earlier)}`, undefined);
    const allowed: PreparedCall = { ...p, decision: granted };
    if (p.budgetUsd === undefined) return this.execute(allowed, undefined);
    return this.executeBudgeted(allowed, p.budgetUsd, undefined, 1, (refused) => this.journal.writeEndedEarly(ref(p), p.arguments, refused, granted));
  }

  /** @internal Checks arguments a person wrote for tool `ref` (`toolset/tool`); `undefined` when this node does not offer it. */
  checkFor(ref: string, raw: unknown): CheckResult | Promise<CheckResult> | undefined {
    const entry = this.catalog.get(ref);
    return entry === undefined ? undefined : checkArguments(entry.tool, raw);
  }

  /** `execute` for an agent with a budget, holding part of it while the call runs (see `BudgetHolds`); `refuse` journals a refusal. */
  private executeBudgeted(p: PreparedCall, budgetUsd: number, expected: CallState | undefined, first: number, refuse: (answer: ToolAnswer) => Promise<ToolAnswer>): Promise<ToolAnswer> {
    return this.budgets.within(
      { ...ref(p), budgetUsd, maxCostUsd: p.entry.tool.annotations.maxCostUsd, holdMs: this.holdMs(p.entry), signal: p.signal },
      () => this.execute(p, expected, first),
      (why) => refuse(why === 'spent' ? budgetAnswer(budgetUsd) : stoppedAnswer(p)),
      () => (p.spent.ran === true ? p.spent.microUsd : undefined),
    );
  }

  /** The longest a call of this tool can take, every attempt and wait included: how long its holds and claims live. */
  private holdMs(entry: CatalogEntry): number {
    const attempts = isRepeatable(entry.tool) ? this.attempts : 1;
    return (entry.tool.annotations.timeout ?? this.timeoutMs) * attempts + this.maxDelayMs * (attempts - 1) + this.leases.ttlMs;
  }

  /**
   * Journals `started` (attempt `first`) under the run's lease, runs the call, then journals its answer
   * and adds its labels to the run, or parks the call if the tool asked to. One async function for all
   * of it: each one a call passes through leaves it about half a kilobyte of garbage.
   */
  private async execute(p: PreparedCall, expected: CallState | undefined, first = 1): Promise<ToolAnswer> {
    let leased: boolean;
    try {
      const acquiring = this.leases.acquire(p.run);
      leased = acquiring === true || (await acquiring);
    } catch (error) {
      throw storeFailure(p, 'lease its run', error);
    }
    if (!leased) {
      // A call asked for again may have finished before that node took the run: its answer is recorded.
      const record = expected === undefined ? await this.store.getCall(p.run, p.call) : undefined;
      if (record !== undefined) return recordedAnswer(record, p.arguments);
      return errorAnswer('conflict', `Run "${p.run}" is being handled by another node, so this call did not run. Try it again once that node is done.`);
    }
    try {
      const journaled = this.journal.writeStarted(p, first, expected);
      if (!(journaled instanceof Promise ? await journaled : journaled)) return await this.answerOrTakeOver(p, expected);
      if (expected === undefined) this.outcomes.called(p, p.decision);
      let attempted: Attempted;
      if (p.entry.tool.annotations.remember === true) {
        const run = (): Promise<Attempted> => {
          const ctx = this.tries.contextOf(p, first);
          return Promise.resolve(this.tries.attempt(p, ctx)).then((outcome) => this.tries.untilAnswered(p, first, ctx, outcome));
        };
        attempted = await this.remembering.answer(p, this.holdMs(p.entry), run, (answer): Attempted => [answer, first]);
      } else {
        // The first attempt here rather than in attemptAll: most calls need no other, and an async
        // function on every call's path costs each call its frame.
        const ctx = this.tries.contextOf(p, first);
        const attempting = this.tries.attempt(p, ctx);
        const outcome = attempting instanceof Promise ? await attempting : attempting;
        attempted =
          'returned' in outcome && ctx.costs === undefined && ctx.measures === undefined
            ? [answerFrom(p.entry.tool, outcome.returned), first]
            : await this.tries.untilAnswered(p, first, ctx, outcome);
      }
      const answer = p.edited === undefined || attempted[0].status === 'parked' ? attempted[0] : { ...attempted[0], edited: p.edited };
      if (attempted[2] === true) return answer;
      let record: CallRecord;
      try {
        // A new call of an agent's turn: its answer, and the labels it brought, are committed with the turn's next write (see JournalBatch).
        const batch = expected === undefined && answer.status !== 'parked' ? this.journal.batchOf(p.run) : undefined;
        // Labels the run had when the call started need no store write (every MCP answer carries `outside`).
        if (!includesAll(p.labels, answer.labels)) {
          if (batch !== undefined) this.outcomes.holdLabels(p, p.labels, answer.labels, batch);
          else await this.outcomes.addLabels(p, answer.labels);
        }
        if (answer.status === 'parked') return await this.parked.park(p, answer.kind, answer.reason, 'started', answer.labels, answer.detail);
        record = this.journal.recordOf(p, answer.status === 'ok' ? 'succeeded' : 'failed', attempted[1], answer);
        if (batch !== undefined) batch.hold({ call: record, expected: 'started' }, isRepeatable(p.entry.tool));
        else {
          const written = this.journal.writeCall(record, 'started');
          if (!(written instanceof Promise ? await written : written)) return await this.journal.answerOfWinner(p.run, p.call);
        }
      } catch (error) {
        throw answerNotJournaled(p, 'write its answer to the journal', error);
      }
      this.outcomes.settled(p, answer, record.attempt, p.spent.measures, p.spent.microUsd, expected === 'parked');
      return answer;
    } finally {
      this.leases.release(p.run);
    }
  }
}
