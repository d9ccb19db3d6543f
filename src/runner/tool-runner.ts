import { randomUUID } from 'node:crypto';
import { MAX_TIMER_MS, type Clock } from '../clock.js';
import { hostname } from 'node:os';
import { ConfigurationError, StoreError, ToolTimeoutError } from '../errors.js';
import type { Decision, Policy, PolicyRule } from '../policy/policy.js';
import type { CallRecord, CallState, InboxKind, InboxRecord, Store, SyncJournal } from '../store/store.js';
import type { EventBus } from '../telemetry/event-bus.js';
import { journaledArguments, type CheckResult } from '../tools/arguments.js';
import type { CatalogEntry, ToolCatalog } from '../tools/catalog.js';
import {
  answerFrom,
  checkArguments,
  failureAnswer,
  invalidArgumentsAnswer,
  mergeLabels,
  notFoundAnswer,
  parseArguments,
} from '../tools/call-tool.js';
import type { CallReporter, Measure } from '../tools/context.js';
import { glob } from '../tools/glob.js';
import { errorAnswer, NO_LABELS, type EditedCall, type ToolAnswer } from '../tools/result.js';
import { isRepeatable } from '../tools/tool.js';
import { toMicroUsd, toUsd } from '../money.js';
import { BudgetHolds } from './budget-holds.js';
import { answerNotJournaled, readOnlyStore, storeFailure, type CallRef } from './call-failures.js';
import { recoveryPass, type RecoveryHost, type RecoveryReport, type Resumed } from './recovery.js';
import { RememberedKeys } from './remembered-keys.js';
import { RunGrants } from './run-grants.js';
import { RunLeases } from './run-leases.js';
import { SerialPasses } from './serial-passes.js';
import { CallContext } from './call-context.js';
import { callReporter } from './call-reporter.js';
import { Deadlines } from './deadlines.js';
import { argumentsDigest } from './digest.js';
import { backoffDelay, isTransient, sleep } from './transient.js';

/** How the runner times out and retries calls. Every field has a default. */
export interface RunnerOptions {
  /** One attempt's time-out unless the tool sets `@Timeout`: 60 000 ms. */
  readonly timeoutMs?: number;
  readonly retry?: {
    /** Attempts in all for a repeatable call that fails transiently: 3. Non-repeatable calls get 1. */
    readonly attempts?: number;
    /** The first retry waits about this long (with jitter), doubling each time: 200 ms. */
    readonly baseDelayMs?: number;
    /** No wait is longer than this: 10 000 ms. */
    readonly maxDelayMs?: number;
  };
  /** How long `@Idempotent({ remember: true })` results are kept: 24 hours. */
  readonly rememberMs?: number;
  /** Where retry jitter comes from; replace it for repeatable tests. */
  readonly random?: () => number;
  /** This node's name in run leases: `host:pid:random` unless given. Give each node a distinct one. */
  readonly node?: string;
  /** How long a run's lease lasts unless renewed: 30 000 ms. A dead node's runs are taken over after it. */
  readonly leaseMs?: number;
}

/** A call to run: who calls, in which run, and what the model asked for. */
export interface CallRequest {
  readonly agent: string;
  readonly run: string;
  readonly call: { readonly id: string; readonly name: string; readonly arguments?: unknown };
  /** The agent's budget in US dollars: at or over it, no call starts. */
  readonly budgetUsd?: number;
  /** The agent's own rules, applied with the global ones (the most restrictive wins). */
  readonly policy?: readonly PolicyRule[];
  /** Patterns of the tools this caller may use, such as `orders/*`; all when absent. */
  readonly tools?: readonly string[];
  /** Stops the call: its tool's signal aborts and the call answers `aborted`. */
  readonly signal?: AbortSignal;
  /** The key the tool sees as `ctx.idempotencyKey`; `run:call` unless given. */
  readonly idempotencyKey?: string;
  /** Where the tool's `ctx.progress` and `ctx.log` go (an MCP client's session); nowhere when absent. */
  readonly reporter?: CallReporter;
}

/** A call that passed resolution and checking, ready to run (now, or once approved). */
interface Prepared {
  readonly agent: string;
  readonly run: string;
  readonly call: string;
  /** The tool as policies name it, `toolset/tool`. */
  readonly tool: string;
  readonly entry: CatalogEntry;
  /** The checked arguments the tool receives (a DTO instance for DTO tools). */
  readonly args: unknown;
  /** The arguments as sent, kept in the journal and the inbox. */
  readonly arguments: unknown;
  readonly idempotencyKey: string;
  readonly labels: readonly string[];
  readonly budgetUsd: number | undefined;
  readonly signal?: AbortSignal | undefined;
  readonly reporter?: CallReporter | undefined;
  /**
   * What the tool reported spending on this call so far in micro-dollars (kept in its journal entry),
   * whether an attempt ran here (its cost is then known), and its measures.
   */
  readonly spent: { microUsd: number; ran?: boolean; measures?: Measure[] };
  /** The policy's decision for a new call, announced once its first journal write shows it is new. */
  readonly decision?: Decision;
  /** A person approved it with other arguments: its answer says so. */
  readonly edited?: EditedCall | undefined;
}

/**
 * An answer, the number of the attempt that gave it, and whether the call was lost meanwhile (another
 * node changed its journal entry; the answer is then what that node recorded).
 */
type Attempted = readonly [ToolAnswer, number, lost?: boolean];

type Outcome = { readonly returned: unknown } | { readonly threw: unknown };

export type { RecoveryReport } from './recovery.js';

export const RUNNER_DEFAULTS = Object.freeze({
  timeoutMs: 60_000,
  attempts: 3,
  baseDelayMs: 200,
  maxDelayMs: 10_000,
  rememberMs: 24 * 60 * 60 * 1000,
  leaseMs: 30_000,
});

/**
 * The pipeline every tool call goes through: resolve, check, budget, decide, journal `started`, run
 * (time-out, retries), journal the answer, labels and costs. Each step is explicit and its state is
 * written to the store before the effect it describes, so a crash leaves a readable journal.
 */
export class ToolRunner implements RecoveryHost {
  /**
   * Calls running in this process, by run and call id, so a duplicate joins the first. Replaced by a
   * new Map whenever it empties: in V8 a Map that has lived long (moved to the old generation) and
   * churns through keys keeps each table it discards alive until a full collection, which cost about
   * 1.5 µs a call here, more than the rest of the runner's own work.
   */
  private inFlight = new Map<string, Promise<ToolAnswer>>();
  /** The time-outs of attempts in flight, on one timer. */
  private readonly deadlines = new Deadlines();
  private readonly remembering: RememberedKeys;
  private readonly timeoutMs: number;
  private readonly attempts: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly rememberMs: number;
  private readonly random: () => number;
  /** The run leases this node holds; agent turns share them with their calls. */
  readonly leases: RunLeases;
  /** The store's journal without promises, when its writes are synchronous (see `Store.sync`). */
  private readonly sync: SyncJournal | undefined;
  /** Budget holds; agent turns hold for their model calls too. */
  readonly budgets: BudgetHolds;
  /** Approvals a person gave for the rest of a run (`scope: 'run'`). */
  readonly grants: RunGrants;
  /** The store refuses writes (opened to inspect a journal): no call starts. */
  private readonly readOnly: boolean;
  /** Recovery passes, one at a time. */
  private readonly recoveries = new SerialPasses(() => recoveryPass(this, this.store, this.events, this.clock));

  constructor(
    private readonly catalog: ToolCatalog,
    private readonly store: Store,
    private readonly events: EventBus,
    private readonly policy: Policy,
    private readonly clock: Clock,
    options: RunnerOptions = {},
  ) {
    this.timeoutMs = positive('runner.timeoutMs', options.timeoutMs ?? RUNNER_DEFAULTS.timeoutMs);
    this.attempts = positive('runner.retry.attempts', options.retry?.attempts ?? RUNNER_DEFAULTS.attempts);
    this.baseDelayMs = positive('runner.retry.baseDelayMs', options.retry?.baseDelayMs ?? RUNNER_DEFAULTS.baseDelayMs, { zero: true, timer: true });
    this.maxDelayMs = positive('runner.retry.maxDelayMs', options.retry?.maxDelayMs ?? RUNNER_DEFAULTS.maxDelayMs, { zero: true, timer: true });
    this.rememberMs = positive('runner.rememberMs', options.rememberMs ?? RUNNER_DEFAULTS.rememberMs);
    this.random = options.random ?? Math.random;
    this.sync = store.sync;
    this.budgets = new BudgetHolds(store, clock);
    this.grants = new RunGrants(store, clock);
    this.remembering = new RememberedKeys(store, clock, this.rememberMs);
    this.readOnly = store.readOnly === true;
    const node = options.node ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    this.leases = new RunLeases(store, clock, node, positive('runner.leaseMs', options.leaseMs ?? RUNNER_DEFAULTS.leaseMs, { timer: true }), (run) =>
      events.emit({ type: 'warning', message: `Lost the lease on run "${run}": another node may take its calls over.` }),
    );
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

  /** Takes over a call found `started` (see `RecoveryHost.resume`). */
  resume(record: CallRecord): Promise<Resumed> {
    const key = callKey(record.run, record.call);
    if (this.inFlight.has(key)) return Promise.resolve('skipped');
    const resuming = this.resumeLeased(record);
    // A duplicate of the call sent meanwhile joins it, as it would join a call sent first.
    this.track(key, resuming.then(([, answer]) => answer ?? this.raced(record.run, record.call)));
    return resuming.then(([resumed]) => resumed);
  }

  private async resumeLeased(record: CallRecord): Promise<[Resumed, ToolAnswer?]> {
    const entry = this.catalog.get(record.tool);
    if (entry === undefined) return ['gone'];
    if (!(await this.leases.acquire(record.run))) return ['skipped'];
    try {
      const current = await this.store.getCall(record.run, record.call);
      if (current?.state !== 'started') return ['gone'];
      const checking = await checkArguments(entry.tool, current.arguments);
      const p: Prepared = {
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
      return ['inDoubt', await this.park(p, 'in_doubt', IN_DOUBT, 'started')];
    } finally {
      this.leases.release(record.run);
    }
  }

  /** Puts back the inbox item of a parked call that a crash lost (see `RecoveryHost`). */
  async restoreInboxItem(record: CallRecord): Promise<void> {
    if (record.answer?.status !== 'parked' || record.inboxId === undefined) return;
    await this.store.putInboxItem(this.inboxItem(record.inboxId, record.answer.kind, record.answer.reason, record, record.answer.labels, undefined));
  }

  /** Whether this node is running the call now: sent, recovered or approved here. */
  isRunning(run: string, call: string): boolean {
    return this.inFlight.has(callKey(run, call));
  }

  /** Whether this node offers the tool a policy names `toolset/tool`, so it can run its calls. */
  offers(ref: string): boolean {
    return this.catalog.get(ref) !== undefined;
  }

  /** Stops background work (waiting for a recovery pass under way) and gives up the run leases this node holds. */
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
    const key = callKey(request.run, request.call.id);
    const running = this.inFlight.get(key);
    if (running !== undefined) return running;
    let answer: Promise<ToolAnswer>;
    try {
      answer = this.start(request);
    } catch (error) {
      answer = Promise.reject(error); // a store that throws at once (its synchronous journal): as if it rejected
    }
    this.track(key, answer);
    return answer;
  }

  /** Counts a call as in flight here until `answer` settles: a duplicate joins it, and recovery leaves it alone. */
  private track(key: string, answer: Promise<ToolAnswer>): void {
    this.inFlight.set(key, answer);
    const done = (): void => {
      if (this.inFlight.get(key) !== answer) return;
      this.inFlight.delete(key);
      if (this.inFlight.size === 0) this.inFlight = new Map();
    };
    void answer.then(done, done);
  }

  /**
   * Runs a parked call a person let go (approved, or said an in-doubt call did not happen). `mark`
   * records the person's answer first (its compare-and-set makes one answer count); the call counts as
   * running here from then on, so this node's recovery never takes it for a crashed one. When another
   * node holds the run, the call is left approved and answers `parked`: a recovery runs it once the run is free.
   */
  runApproved(item: InboxRecord, mark: () => Promise<void>): Promise<ToolAnswer> {
    const key = callKey(item.run, item.call);
    const answer = this.runApprovedLeased(item, mark);
    if (!this.inFlight.has(key)) this.track(key, answer.catch(() => this.raced(item.run, item.call)));
    return answer;
  }

  private async runApprovedLeased(item: InboxRecord, mark: () => Promise<void>): Promise<ToolAnswer> {
    await mark();
    if (!(await this.leases.acquire(item.run))) {
      const reason = `A person let this call go; run "${item.run}" is busy on another node right now, so the next recovery runs it once the run is free.`;
      return { status: 'parked', kind: item.kind, inboxId: item.id, reason, labels: item.labels };
    }
    try {
      const entry = this.catalog.get(item.tool);
      const base = { agent: item.agent, run: item.run, call: item.call, tool: item.tool };
      if (entry === undefined) {
        return await this.settle(base, errorAnswer('tool_not_found', `Tool "${item.tool}" is no longer available, so the call did not run.`), 'parked');
      }
      const sent = item.edited?.arguments ?? item.arguments;
      const checked = await checkArguments(entry.tool, sent);
      if (!checked.ok) return await this.settle(base, invalidArgumentsAnswer(entry.name, checked.issues), 'parked');
      const record = await this.store.getCall(item.run, item.call);
      const prepared: Prepared = {
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
      return await this.executeBudgeted(prepared, item.budgetUsd, 'parked', attempt, (refused) => this.settle(base, refused, 'parked'));
    } finally {
      this.leases.release(item.run);
    }
  }

  /**
   * Writes a final answer for a parked call without running it (a person denied or answered it).
   * Returns the answer, or throws a `StoreError` when the journal cannot be written.
   */
  async settle(
    base: CallRef,
    answer: ToolAnswer,
    expected: CallState | undefined,
  ): Promise<ToolAnswer> {
    const previous = await this.store.getCall(base.run, base.call);
    const state = answer.status === 'ok' ? 'succeeded' : 'failed';
    const updatedAt = this.clock.now();
    // The parked entry's arguments, key, attempt and cost stay: only its outcome changes.
    const { inboxId: _parkedOn, ...kept } = previous ?? { arguments: null, idempotencyKey: `${base.run}:${base.call}`, attempt: 0 };
    const record: CallRecord = { ...kept, ...base, state, answer, updatedAt };
    if (!(await this.store.writeCall(record, expected))) return this.raced(base.run, base.call);
    await this.addLabels(base, answer.labels);
    this.emitFinal(base, answer, record.attempt);
    return answer;
  }

  /**
   * Resolves and checks the call, then hands it on. Not an async function: when the checks are
   * synchronous and the store has a synchronous journal (the usual case), the call goes from here to
   * its tool without a frame or a wait of its own; otherwise `startAfterReads` waits for them.
   */
  private start(request: CallRequest): Promise<ToolAnswer> {
    // No read of the journal first: the call's first journal write fails when the call id is known, and
    // its recorded answer comes back then (a store round trip fewer on every call).
    const { run, call } = request;
    const entry = this.resolve(call.name, request.tools);
    const base = { agent: request.agent, run, call: call.id, tool: entry?.ref ?? call.name };
    if (this.readOnly) throw readOnlyStore(base);
    const parsed = parseArguments(call.arguments);
    if (entry === undefined) return this.finishEarly(base, parsed.ok ? parsed.value : call.arguments, notFoundAnswer(call.name, this.visible(request.tools)));
    if (!parsed.ok) return this.finishEarly(base, call.arguments, invalidArgumentsAnswer(entry.name, parsed.issues));
    const checking = checkArguments(entry.tool, parsed.value);
    if (checking instanceof Promise || request.budgetUsd !== undefined || this.sync === undefined) {
      return this.startAfterReads(request, entry, base, parsed.value, checking);
    }
    if (!checking.ok) return this.finishEarly(base, parsed.value, invalidArgumentsAnswer(entry.name, checking.issues));
    let labels: readonly string[];
    try {
      labels = this.sync.getLabels(run);
    } catch (error) {
      throw storeFailure(base, "read the run's labels", error);
    }
    return this.decide(request, entry, base, parsed.value, checking.value, labels);
  }

  /** `start` when it must wait: for an async validator, the agent's spend, or the run's labels. */
  private async startAfterReads(request: CallRequest, entry: CatalogEntry, base: CallRef, value: unknown, checking: CheckResult | Promise<CheckResult>): Promise<ToolAnswer> {
    const checked = await checking;
    if (!checked.ok) return this.finishEarly(base, value, invalidArgumentsAnswer(entry.name, checked.issues));
    let spent: boolean;
    let labels: readonly string[];
    try {
      spent = request.budgetUsd !== undefined && (await this.budgetSpent(request.agent, request.budgetUsd));
      labels = this.sync !== undefined ? this.sync.getLabels(request.run) : await this.store.getLabels(request.run);
    } catch (error) {
      throw storeFailure(base, `read ${request.budgetUsd === undefined ? '' : "the agent's spend and "}the run's labels`, error);
    }
    if (spent) return this.finishEarly(base, value, budgetAnswer(request.budgetUsd!));
    return this.decide(request, entry, base, value, checked.value, labels);
  }

  /** With the arguments checked and the run's labels read: the policy decides, then the call is denied, parked or run. */
  private decide(request: CallRequest, entry: CatalogEntry, base: CallRef, value: unknown, args: unknown, labels: readonly string[]): Promise<ToolAnswer> {
    const annotations = entry.tool.annotations;
    let resources: readonly string[] = NO_RESOURCES;
    try {
      if (annotations.resources !== undefined) resources = annotations.resources(args as never);
    } catch (error) {
      // Fail closed: a policy that cannot see what a call touches must not allow it.
      const message = `Tool "${entry.name}" could not say what it acts on (@Resources threw: ${(error as Error).message}); it did not run.`;
      return this.finishEarly(base, value, errorAnswer('failed', message));
    }
    let deciding: Decision | Promise<Decision>;
    try {
      deciding = this.policy.decide({ agent: request.agent, run: request.run, tool: entry.ref, annotations, arguments: args, labels, resources }, request.policy);
    } catch (error) {
      return this.undecided(entry, base, value, error);
    }
    if (deciding instanceof Promise) {
      return deciding.then(
        (decision) => this.act(request, entry, base, value, args, labels, decision),
        (error: unknown) => this.undecided(entry, base, value, error),
      );
    }
    return this.act(request, entry, base, value, args, labels, deciding);
  }

  /** Fail closed: a policy that cannot decide lets nothing run; the developer is told what broke. */
  private undecided(entry: CatalogEntry, base: CallRef, value: unknown, error: unknown): Promise<ToolAnswer> {
    const cause = (error as Error)?.message ?? String(error);
    this.events.emit({ type: 'warning', message: `The policy could not decide on call "${base.call}" of ${entry.ref} (${cause}); the call did not run. Fix the policy's decide hook.` });
    return this.finishEarly(base, value, errorAnswer('failed', `The policy could not decide on this call, so it did not run (${cause}). Tell the user it needs a person.`));
  }

  /** Acts on the policy's decision: deny, park for a person, or run. */
  private act(request: CallRequest, entry: CatalogEntry, base: CallRef, value: unknown, args: unknown, labels: readonly string[], decision: Decision): Promise<ToolAnswer> {
    if (decision.action === 'deny') {
      const message = `The policy does not allow this call (${decision.rule}); it did not run. Do not retry it; tell the user it needs a person or a different approach.`;
      return this.finishEarly(base, value, errorAnswer('denied', message), decision);
    }
    const prepared: Prepared = {
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
    if (decision.action === 'ask') return this.askUnlessGranted(prepared, decision);
    if (request.budgetUsd === undefined) return this.execute(prepared, undefined);
    return this.executeBudgeted(prepared, request.budgetUsd, undefined, 1, (refused) => this.finishEarly(base, value, refused, decision));
  }

  /** Parks a call the policy asks about, unless a person approved such calls for the rest of its run. */
  private async askUnlessGranted(p: Prepared, decision: Decision): Promise<ToolAnswer> {
    const granted = await this.grants.find({ agent: p.agent, run: p.run, tool: p.tool, arguments: p.arguments, labels: p.labels });
    if (granted === undefined) return this.park(p, 'approval', `Needs approval (${decision.rule}).`, undefined);
    const allowed: Prepared = { ...p, decision: granted };
    if (p.budgetUsd === undefined) return this.execute(allowed, undefined);
    return this.executeBudgeted(allowed, p.budgetUsd, undefined, 1, (refused) => this.finishEarly(ref(p), p.arguments, refused, granted));
  }

  /** Checks arguments a person wrote for tool `ref` (`toolset/tool`); `undefined` when this node does not offer it. */
  checkFor(ref: string, raw: unknown): CheckResult | Promise<CheckResult> | undefined {
    const entry = this.catalog.get(ref);
    return entry === undefined ? undefined : checkArguments(entry.tool, raw);
  }

  /** A journaled call asked for again: the same arguments get its answer; others get a conflict. */
  private recorded(record: CallRecord, args: unknown): ToolAnswer {
    const sent = record.answer?.status === 'parked' ? undefined : record.answer?.edited?.original;
    if (args !== undefined && record.arguments !== null && argumentsDigest(args) !== argumentsDigest(record.arguments) && (sent === undefined || argumentsDigest(args) !== argumentsDigest(sent))) {
      return errorAnswer('conflict', `Call "${record.call}" was already made with other arguments; use a new call id for a new call.`);
    }
    if (record.answer !== undefined) return record.answer;
    return errorAnswer('conflict', `Call "${record.call}" is already running; wait for its answer instead of calling again.`);
  }

  private resolve(name: string, patterns: readonly string[] | undefined): CatalogEntry | undefined {
    const entry = this.catalog.get(name);
    if (entry === undefined || patterns === undefined) return entry;
    return patterns.some((pattern) => glob(pattern)(entry.ref)) ? entry : undefined;
  }

  private visible(patterns: readonly string[] | undefined): string[] {
    return this.catalog.select(patterns).map((entry) => entry.name);
  }

  /** A cheap early answer before the policy and the inbox see the call; `executeBudgeted` holds the budget. */
  private async budgetSpent(agent: string, budgetUsd: number): Promise<boolean> {
    return (await this.store.getSpend(agent)) >= toMicroUsd(budgetUsd);
  }

  /** `execute` for an agent with a budget, holding part of it while the call runs (see `BudgetHolds`); `refuse` journals a refusal. */
  private executeBudgeted(p: Prepared, budgetUsd: number, expected: CallState | undefined, first: number, refuse: (answer: ToolAnswer) => Promise<ToolAnswer>): Promise<ToolAnswer> {
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

  /** Journals a call that ends before it runs (unknown tool, bad arguments, denied, budget). */
  private async finishEarly(
    base: CallRef,
    args: unknown,
    answer: ToolAnswer,
    decision?: Decision,
  ): Promise<ToolAnswer> {
    // Arguments over the limits are journaled as a note, never whole (see journaledArguments).
    const journaled = journaledArguments(args ?? null);
    const record: CallRecord = {
      ...base,
      arguments: journaled,
      idempotencyKey: `${base.run}:${base.call}`,
      state: 'failed',
      attempt: 0,
      answer,
      updatedAt: this.clock.now(),
    };
    const written = await this.store.writeCall(record, undefined).catch((error: unknown) => {
      throw storeFailure(base, 'write its answer to the journal', error);
    });
    if (!written) return this.raced(base.run, base.call, journaled);
    this.announce(base, decision);
    this.emitFinal(base, answer, 0);
    return answer;
  }

  /**
   * Journals `started` (attempt `first`) under the run's lease, runs the call, then journals its answer
   * and adds its labels to the run, or parks the call if the tool asked to. One async function for all
   * of it: each one a call passes through leaves it about half a kilobyte of garbage.
   */
  private async execute(p: Prepared, expected: CallState | undefined, first = 1): Promise<ToolAnswer> {
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
      if (record !== undefined) return this.recorded(record, p.arguments);
      return errorAnswer('conflict', `Run "${p.run}" is being handled by another node, so this call did not run. Try it again once that node is done.`);
    }
    try {
      const journaled = this.journal(p, first, expected);
      if (!(journaled instanceof Promise ? await journaled : journaled)) return await this.raced(p.run, p.call, p.arguments);
      if (expected === undefined) this.announce(p, p.decision);
      let attempted: Attempted;
      if (p.entry.tool.annotations.remember === true) {
        const run = (): Promise<Attempted> => {
          const ctx = this.contextOf(p, first);
          return Promise.resolve(this.attemptOnce(p, ctx)).then((outcome) => this.attemptAll(p, first, ctx, outcome));
        };
        attempted = await this.remembering.answer(p, this.holdMs(p.entry), run, (answer): Attempted => [answer, first]);
      } else {
        // The first attempt here rather than in attemptAll: most calls need no other, and an async
        // function on every call's path costs each call its frame.
        const ctx = this.contextOf(p, first);
        const attempting = this.attemptOnce(p, ctx);
        const outcome = attempting instanceof Promise ? await attempting : attempting;
        attempted =
          'returned' in outcome && ctx.costs === undefined && ctx.measures === undefined
            ? [answerFrom(p.entry.tool, outcome.returned), first]
            : await this.attemptAll(p, first, ctx, outcome);
      }
      const answer = p.edited === undefined || attempted[0].status === 'parked' ? attempted[0] : { ...attempted[0], edited: p.edited };
      if (attempted[2] === true) return answer;
      let record: CallRecord;
      try {
        // Labels the run had when the call started need no store write (every MCP answer carries `outside`).
        if (!includesAll(p.labels, answer.labels)) await this.addLabels(p, answer.labels);
        if (answer.status === 'parked') return await this.park(p, 'park', answer.reason, 'started', answer.labels);
        record = this.recordOf(p, answer.status === 'ok' ? 'succeeded' : 'failed', attempted[1], answer);
        const written = this.writeCall(record, 'started');
        if (!(written instanceof Promise ? await written : written)) return await this.raced(p.run, p.call);
      } catch (error) {
        throw answerNotJournaled(p, 'write its answer to the journal', error);
      }
      this.emitFinal(p, answer, record.attempt, p.spent.measures);
      return answer;
    } finally {
      this.leases.release(p.run);
    }
  }

  /**
   * Takes attempt `attempt` from its outcome to the call's answer: counts its costs, and runs more
   * attempts while they may help (only repeatable tools get more than one, and only after transient
   * failures). The caller makes the first attempt, with `ctx`.
   */
  private async attemptAll(p: Prepared, attempt: number, ctx: CallContext, outcome: Outcome): Promise<Attempted> {
    const tool = p.entry.tool;
    const limit = attempt - 1 + (isRepeatable(tool) ? this.attempts : 1);
    for (;;) {
      // Costs are counted whatever the attempt's outcome; measures are reported with the call's last event.
      if (ctx.costs !== undefined) await this.recordCosts(p, ctx.costs).catch((error: unknown) => {
        throw answerNotJournaled(p, 'add its cost to the spend', error);
      });
      if (ctx.measures !== undefined) (p.spent.measures ??= []).push(...ctx.measures);
      if ('returned' in outcome) return [answerFrom(tool, outcome.returned), attempt];
      if (p.signal?.aborted === true) return [stoppedAnswer(p), attempt];
      if (attempt >= limit || !isTransient(outcome.threw)) return [failureAnswer(tool, outcome.threw), attempt];
      const delayMs = backoffDelay(attempt, this.baseDelayMs, this.maxDelayMs, this.random);
      // Journal before effect, for a retry too: if another node took the call meanwhile, it is theirs.
      if (!(await this.journal(p, attempt + 1, 'started'))) return [await this.raced(p.run, p.call, p.arguments), attempt, true];
      const reason = (outcome.threw as Error)?.message ?? String(outcome.threw);
      this.events.emit({ type: 'tool.retrying', agent: p.agent, run: p.run, call: p.call, tool: p.tool, attempt: attempt + 1, delayMs, reason });
      if (!(await sleep(delayMs, p.signal))) return [stoppedAnswer(p), attempt];
      attempt++;
      ctx = this.contextOf(p, attempt);
      const attempting = this.attemptOnce(p, ctx);
      outcome = attempting instanceof Promise ? await attempting : attempting;
    }
  }

  private contextOf(p: Prepared, attempt: number): CallContext {
    return new CallContext(p.agent, p.run, p.call, attempt, p.idempotencyKey, p.labels, callReporter(this.events, p, p.reporter));
  }

  /** One attempt under one timer; synchronous when the tool is, since most are. */
  private attemptOnce(p: Prepared, ctx: CallContext): Outcome | Promise<Outcome> {
    const tool = p.entry.tool;
    p.spent.ran = true;
    try {
      const result = tool.run(p.args as never, ctx);
      return isThenable(result) ? this.race(result, ctx, tool.annotations.timeout ?? this.timeoutMs, p) : { returned: result };
    } catch (error) {
      return { threw: error };
    }
  }

  /** Waits for the tool, its time-out or the caller's stop, whichever comes first. */
  private race(result: PromiseLike<unknown>, ctx: CallContext, ms: number, p: Prepared): Promise<Outcome> {
    const signal = p.signal;
    return new Promise<Outcome>((resolve) => {
      let stop: (() => void) | undefined;
      const settle = (outcome: Outcome): void => {
        this.deadlines.cancel(deadline);
        if (stop !== undefined) signal?.removeEventListener('abort', stop);
        resolve(outcome);
      };
      // The answer is settled before the tool is told to stop, so nothing the tool does then can hold it.
      const deadline = this.deadlines.add(ms, () => {
        const error = new ToolTimeoutError(p.entry.name, ms, isRepeatable(p.entry.tool));
        settle({ threw: error });
        ctx.abort(error);
      });
      // Only a caller's signal needs a listener (most calls come without one).
      if (signal !== undefined) {
        stop = (): void => {
          settle({ threw: signal.reason });
          ctx.abort(signal.reason);
        };
        signal.addEventListener('abort', stop, { once: true });
        if (signal.aborted) stop();
      }
      result.then(
        (returned) => settle({ returned }),
        (threw: unknown) => settle({ threw }),
      );
    });
  }

  private async recordCosts(p: Prepared, costs: readonly number[]): Promise<void> {
    for (const usd of costs) {
      const microUsd = toMicroUsd(usd);
      p.spent.microUsd += microUsd;
      const totalMicroUsd = await this.store.addSpend(p.agent, microUsd);
      this.events.emit({ type: 'cost', agent: p.agent, run: p.run, call: p.call, source: 'tool', usd, totalUsd: toUsd(totalMicroUsd), totalMicroUsd });
    }
  }

  private async park(p: Prepared, kind: InboxKind, reason: string, expected: CallState | undefined, labels: readonly string[] = []): Promise<ToolAnswer> {
    const inboxId = randomUUID();
    const answer: ToolAnswer = { status: 'parked', kind, inboxId, reason, labels };
    // The journal first: a crash between the two leaves a parked call whose item recovery puts back.
    const written = await this.store.writeCall({ ...this.recordOf(p, 'parked', 0, answer), inboxId }, expected);
    if (!written) return this.raced(p.run, p.call, p.arguments);
    if (expected === undefined) this.announce(p, p.decision);
    const item = this.inboxItem(inboxId, kind, reason, p, mergeLabels(p.labels, labels), p.budgetUsd);
    await this.store.putInboxItem(kind === 'approval' ? { ...item, inputSchema: p.entry.tool.inputSchema } : item);
    this.events.emit({ type: 'tool.parked', agent: p.agent, run: p.run, call: p.call, tool: p.tool, inboxId, kind, reason });
    return answer;
  }

  private inboxItem(
    id: string,
    kind: InboxKind,
    reason: string,
    call: CallRef & { readonly arguments: unknown },
    labels: readonly string[],
    budgetUsd: number | undefined,
  ): InboxRecord {
    return {
      id,
      kind,
      status: 'pending',
      agent: call.agent,
      run: call.run,
      call: call.call,
      tool: call.tool,
      arguments: call.arguments,
      digest: argumentsDigest(call.arguments),
      labels,
      reason,
      createdAt: this.clock.now(),
      ...(budgetUsd === undefined ? {} : { budgetUsd }),
    };
  }

  /**
   * Journals `started` (attempt `attempt`) before the attempt runs; a store that fails stops the call.
   * Not an async function: on every call's path, its frame would cost more than the write.
   */
  private journal(p: Prepared, attempt: number, expected: CallState | undefined): boolean | Promise<boolean> {
    const failed = (error: unknown): never => {
      throw storeFailure(p, 'write it to the journal as started', error);
    };
    try {
      const written = this.writeCall(this.recordOf(p, 'started', attempt, undefined), expected);
      return written instanceof Promise ? written.catch(failed) : written;
    } catch (error) {
      return failed(error);
    }
  }

  /** A call's journal write, without a promise when the store's writes are synchronous. */
  private writeCall(record: CallRecord, expected: CallState | undefined): boolean | Promise<boolean> {
    return this.sync !== undefined ? this.sync.writeCall(record, expected) : this.store.writeCall(record, expected);
  }

  private recordOf(p: Prepared, state: CallState, attempt: number, answer: ToolAnswer | undefined): CallRecord {
    const { run, call, agent, tool, arguments: args, idempotencyKey } = p;
    const updatedAt = this.clock.now();
    // Whole literals rather than fields added afterwards: a memory store keeps every record, and an
    // added field costs each of them a second allocation (only a call that reported a cost gets one).
    const record: Mutable<CallRecord> =
      answer === undefined
        ? { run, call, agent, tool, arguments: args, idempotencyKey, state, attempt, updatedAt }
        : { run, call, agent, tool, arguments: args, idempotencyKey, state, attempt, answer, updatedAt };
    if (p.spent.microUsd > 0) record.costUsd = toUsd(p.spent.microUsd);
    return record;
  }

  /** Someone else changed the call's state first: answer with what they recorded. */
  private async raced(run: string, call: string, args?: unknown): Promise<ToolAnswer> {
    const record = await this.store.getCall(run, call);
    if (record === undefined) return errorAnswer('conflict', `Call "${call}" is being handled elsewhere; wait for its answer.`);
    return this.recorded(record, args);
  }

  /** A new call: `tool.called`, then `tool.decided` when the policy decided it. */
  private announce(base: CallRef, decision: Decision | undefined): void {
    if (!this.events.listening) return; // every call's path: no events built for nobody
    this.events.emit({ type: 'tool.called', ...ref(base) });
    if (decision !== undefined) this.events.emit({ type: 'tool.decided', ...ref(base), decision: decision.action, rule: decision.rule });
  }

  private async addLabels(base: CallRef, labels: readonly string[]): Promise<void> {
    if (labels.length === 0) return;
    const added = await this.store.addLabels(base.run, labels);
    if (added.length > 0) this.events.emit({ type: 'label.added', ...ref(base), labels: added });
  }

  private emitFinal(base: CallRef, answer: ToolAnswer, attempts: number, measures?: readonly Measure[]): void {
    if (!this.events.listening) return; // every call's path: no events built for nobody
    const measured = measures === undefined ? {} : { measures };
    if (answer.status === 'ok') this.events.emit({ type: 'tool.succeeded', ...ref(base), attempts, labels: answer.labels, ...measured });
    else if (answer.status === 'error') this.events.emit({ type: 'tool.failed', ...ref(base), code: answer.code, message: answer.message, attempts, ...measured });
  }

}

const IN_DOUBT =
  'Wardrik stopped while this call was running, so it may or may not have happened. Say whether it did: ' +
  'inbox.answer(id, { happened: true, result }) records its result, { happened: false } runs it now, or deny it.';

const NO_RESOURCES: readonly string[] = Object.freeze([]);

function includesAll(have: readonly string[], wanted: readonly string[]): boolean {
  for (let i = 0; i < wanted.length; i++) if (!have.includes(wanted[i]!)) return false;
  return true;
}

/** Just the call's reference fields, for an event (a prepared call carries much more). */
function ref(call: CallRef): CallRef {
  return { agent: call.agent, run: call.run, call: call.call, tool: call.tool };
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

function callKey(run: string, call: string): string {
  return `${run}\u0000${call}`;
}

function stoppedAnswer(p: Prepared): ToolAnswer {
  return errorAnswer('aborted', `The call to "${p.entry.name}" was stopped before it finished.`, p.entry.tool.annotations.labels ?? NO_LABELS);
}

function budgetAnswer(budgetUsd: number): ToolAnswer {
  return errorAnswer('budget_spent', `The agent's budget of $${budgetUsd} is spent, so this call did not run. Finish with what you have.`);
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== null && (typeof value === 'object' || typeof value === 'function') && typeof (value as PromiseLike<unknown>).then === 'function';
}

/**
 * A positive option (`zero`: or 0). A `timer` one is waited on by a Node timer, so it may be no longer
 * than Node's longest: a longer one fires at once. (`timeoutMs` need not be: the deadlines wait it out.)
 */
function positive(name: string, value: number, allow: { zero?: boolean; timer?: boolean } = {}): number {
  const max = allow.timer === true ? MAX_TIMER_MS : Infinity;
  if (!Number.isFinite(value) || value < 0 || (allow.zero !== true && value === 0) || value > max) {
    const range = `${allow.zero === true ? 'of at least 0' : 'above 0'}${max === Infinity ? '' : ` and at most ${max}`}`;
    throw new ConfigurationError(`${name} must be a number ${range}; got ${String(value)}.`);
  }
  return value;
}
