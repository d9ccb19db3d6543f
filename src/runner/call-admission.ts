import type { Decision, Policy } from '../policy/policy.js';
import type { Store, SyncJournal } from '../store/store.js';
import type { EventBus } from '../telemetry/event-bus.js';
import type { CheckResult } from '../tools/arguments.js';
import type { CatalogEntry, ToolCatalog } from '../tools/catalog.js';
import { checkArguments, invalidArgumentsAnswer, notFoundAnswer, parseArguments } from '../tools/call-tool.js';
import { glob } from '../tools/glob.js';
import { errorAnswer, type ToolAnswer } from '../tools/result.js';
import { toMicroUsd } from '../money.js';
import { readOnlyStore, storeFailure, type CallRef } from './call-failures.js';
import type { CallJournal } from './call-journal.js';
import { budgetAnswer, NO_RESOURCES, type CallRequest } from './prepared-call.js';
import type { RunLeases } from './run-leases.js';

/** A call the checks let through, with the policy's decision: the runner denies, parks or runs it. */
export type Admitted = (
  request: CallRequest,
  entry: CatalogEntry,
  base: CallRef,
  value: unknown,
  args: unknown,
  labels: readonly string[],
  decision: Decision,
) => Promise<ToolAnswer>;

/**
 * What a new call goes through before anything runs: the tool is resolved among those the caller may
 * use, the arguments parsed and checked, the agent's spend and the run's labels read (from memory while
 * this node holds the run's lease: see `RunLeases.labelsOf`), and the policy decides. A call that fails
 * a check is journaled with its answer and goes no further.
 */
export class CallAdmission {
  /** The store's journal without promises, when its writes are synchronous (see `Store.sync`). */
  private readonly sync: SyncJournal | undefined;
  /** The store refuses writes (opened to inspect a journal): no call starts. */
  private readonly readOnly: boolean;

  constructor(
    private readonly catalog: ToolCatalog,
    private readonly store: Store,
    private readonly events: EventBus,
    private readonly policy: Policy,
    private readonly journal: CallJournal,
    private readonly leases: Pick<RunLeases, 'labelsOf'>,
    private readonly admitted: Admitted,
  ) {
    this.sync = store.sync;
    this.readOnly = store.readOnly === true;
  }

  /**
   * Resolves and checks the call, then hands it on. Not an async function: when the checks are
   * synchronous and the store has a synchronous journal (the usual case), the call goes from here to
   * its tool without a frame or a wait of its own; otherwise `startAfterReads` waits for them.
   */
  start(request: CallRequest): Promise<ToolAnswer> {
    // No read of the journal first: the call's first journal write fails when the call id is known, and
    // its recorded answer comes back then (a store round trip fewer on every call).
    const { run, call } = request;
    const entry = this.resolve(call.name, request.tools);
    const base = { agent: request.agent, run, call: call.id, tool: entry?.ref ?? call.name };
    if (this.readOnly) throw readOnlyStore(base);
    const parsed = parseArguments(call.arguments);
    if (entry === undefined)
      return this.journal.writeEndedEarly(
        base,
        parsed.ok ? parsed.value : call.arguments,
        notFoundAnswer(call.name, this.visible(request.tools)),
      );
    if (!parsed.ok)
      return this.journal.writeEndedEarly(base, call.arguments, invalidArgumentsAnswer(entry.name, parsed.issues));
    const checking = checkArguments(entry.tool, parsed.value);
    if (checking instanceof Promise || request.budgetUsd !== undefined || this.sync === undefined) {
      return this.startAfterReads(request, entry, base, parsed.value, checking);
    }
    if (!checking.ok)
      return this.journal.writeEndedEarly(base, parsed.value, invalidArgumentsAnswer(entry.name, checking.issues));
    const sync = this.sync;
    let labels: readonly string[] | Promise<readonly string[]>;
    try {
      labels = this.leases.labelsOf(run, () => this.journal.withHeldLabels(run, sync.getLabels(run)));
    } catch (error) {
      throw storeFailure(base, "read the run's labels", error);
    }
    if (labels instanceof Promise) return this.startAfterReads(request, entry, base, parsed.value, checking);
    return this.decide(request, entry, base, parsed.value, checking.value, labels);
  }

  /** `start` when it must wait: for an async validator, the agent's spend, or the run's labels. */
  private async startAfterReads(
    request: CallRequest,
    entry: CatalogEntry,
    base: CallRef,
    value: unknown,
    checking: CheckResult | Promise<CheckResult>,
  ): Promise<ToolAnswer> {
    const checked = await checking;
    if (!checked.ok)
      return this.journal.writeEndedEarly(base, value, invalidArgumentsAnswer(entry.name, checked.issues));
    let spent: boolean;
    let labels: readonly string[];
    try {
      spent = request.budgetUsd !== undefined && (await this.budgetSpent(request.agent, request.budgetUsd));
      const sync = this.sync;
      labels = await this.leases.labelsOf(request.run, () =>
        this.journal.withHeldLabels(
          request.run,
          sync !== undefined ? sync.getLabels(request.run) : this.store.getLabels(request.run),
        ),
      );
    } catch (error) {
      throw storeFailure(
        base,
        `read ${request.budgetUsd === undefined ? '' : "the agent's spend and "}the run's labels`,
        error,
      );
    }
    if (spent) return this.journal.writeEndedEarly(base, value, budgetAnswer(request.budgetUsd!));
    return this.decide(request, entry, base, value, checked.value, labels);
  }

  /** With the arguments checked and the run's labels read: the policy decides, then the call is denied, parked or run. */
  private decide(
    request: CallRequest,
    entry: CatalogEntry,
    base: CallRef,
    value: unknown,
    args: unknown,
    labels: readonly string[],
  ): Promise<ToolAnswer> {
    const annotations = entry.tool.annotations;
    let resources: readonly string[] = NO_RESOURCES;
    try {
      if (annotations.resources !== undefined) resources = annotations.resources(args as never);
    } catch (error) {
      // Fail closed: a policy that cannot see what a call touches must not allow it.
      const message = `Tool "${entry.name}" could not say what it acts on (@Resources threw: ${(error as Error).message}); it did not run.`;
      return this.journal.writeEndedEarly(base, value, errorAnswer('failed', message));
    }
    let deciding: Decision | Promise<Decision>;
    try {
      deciding = this.policy.decide(
        { agent: request.agent, run: request.run, tool: entry.ref, annotations, arguments: args, labels, resources },
        request.policy,
      );
    } catch (error) {
      return this.undecided(entry, base, value, error);
    }
    if (deciding instanceof Promise) {
      return deciding.then(
        (decision) => this.admitted(request, entry, base, value, args, labels, decision),
        (error: unknown) => this.undecided(entry, base, value, error),
      );
    }
    return this.admitted(request, entry, base, value, args, labels, deciding);
  }

  /** Fail closed: a policy that cannot decide lets nothing run; the developer is told what broke. */
  private undecided(entry: CatalogEntry, base: CallRef, value: unknown, error: unknown): Promise<ToolAnswer> {
    const cause = (error as Error)?.message ?? String(error);
    this.events.emit({
      type: 'warning',
      message: `The policy could not decide on call "${base.call}" of ${entry.ref} (${cause}); the call did not run. Fix the policy's decide hook.`,
    });
    return this.journal.writeEndedEarly(
      base,
      value,
      errorAnswer(
        'failed',
        `The policy could not decide on this call, so it did not run (${cause}). Tell the user it needs a person.`,
      ),
    );
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
}
