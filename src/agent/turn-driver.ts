import type { LanguageModelV3Message } from '@ai-sdk/provider';
import type { Clock } from '../clock.js';
import { ConflictError, WardrikError } from '../errors.js';
import { toMicroUsd, toUsd } from '../money.js';
import type { BudgetHolds } from '../runner/budget-holds.js';
import { JournalBatch } from '../runner/journal-batch.js';
import type { ToolRunner } from '../runner/tool-runner.js';
import type { RunLeases } from '../runner/run-leases.js';
import type { Store, TurnRecord } from '../store/store.js';
import { addLabels } from '../store/journal-writes.js';
import type { EventBus } from '../telemetry/event-bus.js';
import type { ParkedCall, TurnOutcome, TurnResult } from './agent.js';
import type { ConversationHistory } from './conversation-history.js';
import type { DeferredTools } from './deferred-tools.js';
import { turnMessages, type ModelStepData, type StepData } from './messages.js';
import { modelHold } from './model-budget.js';
import type { ModelCalls, ModelFailure } from './model-calls.js';
import type { AgentTracing } from './tracing.js';
import type { TurnJournal } from './turn-journal.js';
import { storedTurnData, turnDataOf, type TurnData } from './turn-data.js';
import { resultOf, turnLength, type LiveTurn, type Runtime } from './turn-state.js';
import type { TurnToolCalls } from './turn-tool-calls.js';
import { OUTSIDE } from '../tools/labels.js';
import { ValueTable, type ValueTableSnapshot } from '../tools/value-table.js';
import type { Policy } from '../policy/policy.js';

/** What the turn loop works with. */
export interface TurnDriverParts {
  readonly store: Store;
  /** The agents' tools, deferred ones and the search that loads them. */
  readonly deferredTools: DeferredTools;
  readonly events: EventBus;
  readonly clock: Clock;
  readonly leases: Pick<RunLeases, 'acquire' | 'release' | 'addedLabels'>;
  readonly budgets: BudgetHolds;
  /** Where the runner learns which batch a turn's calls commit with. */
  readonly journals: Pick<ToolRunner, 'journalWith'>;
  readonly tracing: AgentTracing;
  readonly modelCalls: ModelCalls;
  readonly toolCalls: TurnToolCalls;
  readonly journal: TurnJournal;
  readonly history: ConversationHistory;
  /** Whether turns hold outside values as handles (`labels: 'values'`). */
  readonly policy: Pick<Policy, 'followsValues'>;
  /** Aborts when the agent service closes. */
  readonly stopping: AbortSignal;
  /** A turn just parked: its calls may have been answered while it was written. */
  readonly parked: (run: string) => void;
}

/**
 * The turn loop: model step, its tool calls, next model step … until the model answers, a call parks,
 * the budget is spent, `maxSteps` is reached or the turn is stopped. Each stop is written to the turn's
 * record (`endTurn`) and handed to those waiting on the turn.
 */
export class TurnDriver {
  /** Turns driven here now. */
  readonly active = new Set<string>();
  /** The state of the turns driven here, by run. */
  private readonly driving = new Map<string, LiveTurn>();
  /** Who waits on each turn's next stop (`agent.result`). */
  readonly waiters = new Map<string, Set<(result: TurnResult) => void>>();
  private readonly store: Store;
  private readonly deferredTools: DeferredTools;
  private readonly events: EventBus;
  private readonly clock: Clock;
  private readonly leases: Pick<RunLeases, 'acquire' | 'release' | 'addedLabels'>;
  private readonly budgets: BudgetHolds;
  private readonly journals: Pick<ToolRunner, 'journalWith'>;
  private readonly tracing: AgentTracing;
  private readonly modelCalls: ModelCalls;
  private readonly toolCalls: TurnToolCalls;
  private readonly journal: TurnJournal;
  private readonly history: ConversationHistory;
  private readonly policy: Pick<Policy, 'followsValues'>;
  private readonly stopping: AbortSignal;
  private readonly parked: (run: string) => void;

  constructor(parts: TurnDriverParts) {
    ({
      store: this.store,
      deferredTools: this.deferredTools,
      events: this.events,
      clock: this.clock,
      leases: this.leases,
      budgets: this.budgets,
      journals: this.journals,
      tracing: this.tracing,
      modelCalls: this.modelCalls,
      toolCalls: this.toolCalls,
      journal: this.journal,
      history: this.history,
      policy: this.policy,
      stopping: this.stopping,
      parked: this.parked,
    } = parts);
  }

  /** The turn driven here under `run`, if any: a cost of one of its calls is the turn's. */
  live(run: string): LiveTurn | undefined {
    return this.driving.get(run);
  }

  /**
   * Builds the in-memory state of a turn from its record and journaled steps; `values`: the outside values
   * the earlier turns in its prompt held (`ConversationHistory.before`).
   */
  prepare(
    rt: Runtime,
    record: TurnRecord,
    history: readonly LanguageModelV3Message[],
    steps: StepData[],
    signal: AbortSignal | undefined,
    values: readonly ValueTableSnapshot[] = [],
  ): LiveTurn {
    const data = turnDataOf(record);
    const prompt: LanguageModelV3Message[] = [];
    if (rt.options.instructions !== undefined && rt.options.instructions !== '')
      prompt.push({ role: 'system', content: rt.options.instructions });
    for (const message of history) prompt.push(message);
    for (const message of turnMessages(data.input, steps)) prompt.push(message);
    const tools = this.deferredTools.forTurn(rt, history, steps);
    // Under labels on values the stored text has its handles revealed: the model's text comes from its steps.
    let text = data.values === true ? '' : data.text;
    let modelSteps = 0;
    for (const step of steps) {
      if (step.kind === 'model') {
        modelSteps++;
        if (step.text !== '') text = step.text;
      }
    }
    // The handles the model read in earlier turns and in this turn's steps resolve to the same values here.
    const started = ValueTable.merged(values);
    const table = this.policy.followsValues
      ? new ValueTable(
          ValueTable.merged([
            started,
            ...steps.flatMap((step) => (step.kind === 'tools' && step.values !== undefined ? [step.values] : [])),
          ]),
        )
      : undefined;
    // Guard (outside-tools-steer): an untrusted server's tool descriptions are outside text the planner reads in clear.
    if (tools.writtenOutside) table?.steer([OUTSIDE]);
    return {
      rt,
      run: record.run,
      record,
      input: data.input,
      prompt,
      steps,
      modelSteps,
      modelMs: 0,
      text,
      spentUsd: data.spentUsd,
      ...tools,
      signal: signal === undefined ? this.stopping : AbortSignal.any([signal, this.stopping]),
      span: this.tracing.turn(rt.id, record.run, rt.modelId, rt.provider),
      earlier: data.earlier ?? [],
      waitingForPerson: new Map(),
      journal: new JournalBatch(this.store),
      // A turn with no steps yet has had no calls: every answer it gets, it sees here (and the tools it reads).
      labelsRead: steps.length === 0 ? new Set(this.toolLabels(tools.outsideServers)) : undefined,
      values: table,
      valuesFrom: started.held.length,
    };
  }

  /**
   * The labels the tools a turn's model reads bring its run: `outside` under the run-level rule when an
   * untrusted MCP server wrote some of them (labels on values count such a turn as steered instead).
   */
  private toolLabels(outsideServers: readonly string[]): readonly string[] {
    return outsideServers.length > 0 && !this.policy.followsValues ? [OUTSIDE] : [];
  }

  /** Drives a turn until it ends or parks; the run's lease is held throughout and given up after. */
  async drive(d: LiveTurn): Promise<TurnResult> {
    this.active.add(d.run);
    this.driving.set(d.run, d);
    this.journals.journalWith(d.run, d.journal);
    let parked = false;
    try {
      // Guard (outside-tools-resumed): a turn taken up again may read tools that were not there when it started.
      if (d.record.version > 1) await this.carryToolLabels(d);
      const result = await this.loop(d);
      parked = result.status === 'parked';
      return result;
    } catch (error) {
      if (d.record.status === 'running') {
        d.span.fail(error instanceof WardrikError ? error.code : 'error', (error as Error).message);
        d.span.end();
      }
      throw error;
    } finally {
      await this.endJournal(d);
      this.active.delete(d.run);
      this.driving.delete(d.run);
      this.leases.release(d.run);
      // Its calls may have been answered while the turn parked (a server's question answered at once):
      // such an answer was committed with the turn's last writes just now, and told nobody, as the
      // turn was still driven here then.
      if (parked) this.parked(d.run);
    }
  }

  /** Adds the labels of the tools the turn's model reads to its run, if it lacks them (see `toolLabels`). */
  private async carryToolLabels(d: LiveTurn): Promise<void> {
    const added = await addLabels(this.store, d.run, this.toolLabels(d.outsideServers));
    if (added.length > 0) this.leases.addedLabels(d.run, added);
  }

  /**
   * The turn stopped here: what it still holds is committed if the store lets it (the turn was stopped,
   * say), else dropped, as a crash would drop it (recovery repeats what is safe to repeat).
   */
  private async endJournal(d: LiveTurn): Promise<void> {
    // First, so that an answer coming meanwhile (a call the turn parked on runs on) is written by the
    // runner itself rather than held in a batch that is about to be dropped.
    this.journals.journalWith(d.run, undefined);
    try {
      await d.journal.flush();
    } catch {
      // Broken by a store failure or another node's write: the error the turn stopped with says so.
    }
    d.journal.abandon(
      () =>
        new ConflictError(
          'stopped',
          { run: d.run },
          `Turn "${d.run}" stopped on this node before these journal writes were committed; recovery takes its calls up.`,
        ),
    );
  }

  private async loop(d: LiveTurn): Promise<TurnResult> {
    const { rt } = d;
    for (;;) {
      const last = d.steps[d.steps.length - 1];
      if (last?.kind === 'model' && last.calls.length > 0) {
        const parked = await this.toolCalls.runStep(d, last, d.steps.length - 1);
        if (parked.length > 0) return this.endTurn(d, 'parked', parked);
        continue;
      }
      if (last?.kind === 'model') return this.endTurn(d, 'done');
      if (d.modelSteps >= rt.maxSteps) {
        return this.endTurn(
          d,
          'failed',
          [],
          `Agent "${rt.id}" made ${rt.maxSteps} model calls in this turn (maxSteps) without a final answer. Raise maxSteps in startAgent, or narrow the task.`,
        );
      }
      const budget = rt.options.budgetUsd;
      if (budget !== undefined) {
        const spent = toUsd(await this.store.getSpend(this.budgets.accountNow(rt.id).account));
        if (spent >= budget) {
          return this.endTurn(
            d,
            'budget_spent',
            [],
            `Agent "${rt.id}" has spent $${round(spent)} of its $${budget} budget, so no further model call started. Raise budgetUsd to go on.`,
          );
        }
      }
      this.throwIfClosing();
      if (d.signal.aborted)
        return this.endTurn(
          d,
          'failed',
          [],
          `The turn was stopped (the signal passed to send aborted) before model call ${d.modelSteps + 1}.`,
        );
      const step = await this.nextModelStep(d, budget);
      if (step === undefined)
        return this.endTurn(
          d,
          'budget_spent',
          [],
          `Agent "${rt.id}" has spent its $${budget} budget, so no further model call started. Raise budgetUsd to go on.`,
        );
      if ('failed' in step) {
        this.throwIfClosing();
        return this.endTurn(d, 'failed', [], step.failed);
      }
    }
  }

  /** Calls the model and journals its step; under a budget, holding part of it meanwhile (`undefined`: the budget is spent). */
  private nextModelStep(d: LiveTurn, budgetUsd: number | undefined): Promise<ModelStepData | ModelFailure | undefined> {
    let cost: number | undefined;
    const step = async (account?: string): Promise<ModelStepData | ModelFailure> => {
      d.spendAccount = account;
      const result = await this.modelCalls.next(d);
      if ('failed' in result) return result;
      await this.journal.recordModelStep(d, result);
      // Under a budget the step's spend is durable before the hold on it is given back, so the next
      // hold (this turn's tool call, another turn's model call, on any node) counts it.
      if (budgetUsd !== undefined) await d.journal.flush();
      cost = toMicroUsd(result.usd);
      return result;
    };
    if (budgetUsd === undefined) return step(undefined);
    const { rt } = d;
    const hold = modelHold(
      { agent: rt.id, run: d.run, step: d.modelSteps + 1, spec: rt.spec },
      rt.price,
      rt.options.maxOutputTokens,
      budgetUsd,
      d.signal,
    );
    const stopped = `The turn was stopped (the signal passed to send aborted) before model call ${d.modelSteps + 1}.`;
    return this.budgets.within<ModelStepData | ModelFailure | undefined>(
      hold,
      step,
      async (why) => (why === 'spent' ? undefined : { failed: stopped }),
      () => cost,
    );
  }

  /** Writes where the turn stands and tells those waiting on it; ended turns join the conversation. */
  private async endTurn(
    d: LiveTurn,
    status: TurnOutcome,
    parked: ParkedCall[] = [],
    error?: string,
  ): Promise<TurnResult> {
    const { rt } = d;
    const data: TurnData = {
      input: d.input,
      model: rt.spec,
      // The person reads the values behind the handles; the model's own history (its steps) keeps the handles.
      text: d.values === undefined ? d.text : d.values.reveal(d.text),
      parked,
      spentUsd: d.spentUsd,
      steps: d.modelSteps,
      ...(error === undefined ? {} : { error }),
      ...(d.earlier.length === 0 ? {} : { earlier: d.earlier }),
      ...(d.values === undefined ? {} : { values: true }),
    };
    const next: TurnRecord = {
      ...d.record,
      status,
      version: d.record.version + 1,
      data: storedTurnData(data),
      updatedAt: this.clock.now(),
    };
    // The steps and answers it holds, then the record that says where the turn stands: one commit. A
    // record another node changed meanwhile stops this node here (a `ConflictError`).
    d.journal.hold({ turn: next, expectedVersion: d.record.version }, false);
    await d.journal.flush();
    d.record = next;
    const result = resultOf(next);
    d.span.set({ 'wardrik.turn.status': status, 'wardrik.turn.steps': d.modelSteps });
    if (status === 'failed' && error !== undefined) d.span.fail('turn_failed', error);
    d.span.end();
    if (status === 'parked') {
      this.events.emit({ type: 'run.parked', agent: rt.id, run: d.run, inboxIds: parked.map((call) => call.inboxId) });
      for (const waiter of this.waiters.get(d.run) ?? []) waiter(result);
      return result;
    }
    this.events.emit({
      type: 'run.finished',
      agent: rt.id,
      run: d.run,
      status,
      steps: d.modelSteps,
      spentUsd: d.spentUsd,
      ...(error === undefined ? {} : { error }),
    });
    const messages = d.prompt.slice(d.prompt.length - turnLength(d));
    await this.history.add(rt, d.run, next.updatedAt, messages, d.labelsRead, d.earlier, d.values?.since(d.valuesFrom));
    for (const waiter of this.waiters.get(d.run) ?? []) waiter(result);
    return result;
  }

  /** Closing stops a turn without settling it, so it stays `running` for recovery. */
  private throwIfClosing(): void {
    if (this.stopping.aborted) throw this.stopping.reason as Error;
  }
}

function round(usd: number): string {
  return usd.toFixed(usd < 1 ? 4 : 2);
}
