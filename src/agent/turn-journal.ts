import type { Clock } from '../clock.js';
import { toMicroUsd, toUsd } from '../money.js';
import type { Store } from '../store/store.js';
import type { EventBus } from '../telemetry/event-bus.js';
import { assistantMessage, type ModelStepData, type StepData } from './messages.js';
import { storedStep } from './turn-data.js';
import type { LiveTurn } from './turn-state.js';

/**
 * A turn's steps in the journal: each model response (with its cost) and each step's tool answers, in
 * order. A step is held in the turn's `JournalBatch` and committed with the run's next
 * write: a model step with its calls' `started` records, before any of them runs. An index another node
 * wrote first stops this node at that commit (a `ConflictError`): it is driving the turn.
 */
export class TurnJournal {
  constructor(
    private readonly store: Store,
    private readonly events: EventBus,
    private readonly clock: Clock,
  ) {}

  /**
   * Holds the step with what it cost, for the commit that starts its calls, before any of them runs:
   * the step and its spend are durable together or not at all. A crash before that commit forgets the
   * step, so the model is asked again and only that answer's cost is counted (two commits a
   * tool call, not three). Under a budget the driver commits them at once, before the budget's hold on
   * the model call is given back.
   */
  async recordModelStep(d: LiveTurn, step: ModelStepData): Promise<void> {
    const { rt } = d;
    this.holdStep(d, step);
    if (rt.price !== undefined) {
      this.holdSpend(d, step.usd);
      // The total is read only for a cost event someone listens to: what the store has, and what this turn holds for it.
      if (this.events.listening) {
        const totalMicroUsd = (await this.store.getSpend(rt.id)) + d.journal.heldSpend(rt.id);
        this.events.emit({
          type: 'cost',
          agent: rt.id,
          run: d.run,
          source: 'model',
          usd: step.usd,
          totalUsd: toUsd(totalMicroUsd),
          totalMicroUsd,
          ...(rt.options.budgetUsd === undefined ? {} : { budgetUsd: rt.options.budgetUsd }),
        });
      }
    }
    d.prompt.push(assistantMessage(step));
    d.modelSteps++;
    if (step.text !== '') d.text = step.text;
    this.events.emit({
      type: 'model.called',
      agent: rt.id,
      run: d.run,
      model: rt.spec,
      step: d.modelSteps,
      inputTokens: step.usage.inputTokens,
      outputTokens: step.usage.outputTokens,
      usd: step.usd,
      finishReason: step.finishReason,
      toolCalls: step.calls.length,
      durationMs: d.modelMs,
    });
  }

  /**
   * Adds a model call's cost to the agent's spend (and the budget period's), held for the run's next
   * commit: a model step's, or the quarantined reader's (`wardrik__read`), which is counted once made.
   */
  holdSpend(d: LiveTurn, usd: number): void {
    const microUsd = toMicroUsd(usd);
    // A call that cost nothing (a free or scripted model) changes no total: nothing written.
    if (microUsd > 0) {
      d.journal.hold({ spend: { agent: d.rt.id, microUsd } });
      if (d.spendAccount !== undefined && d.spendAccount !== d.rt.id)
        d.journal.hold({ spend: { agent: d.spendAccount, microUsd } });
    }
    d.spentUsd += usd;
  }

  /** Adds a step to the turn, held for the run's next commit. */
  holdStep(d: LiveTurn, data: StepData): void {
    d.journal.hold({
      step: { run: d.run, index: d.steps.length, data: storedStep(data), createdAt: this.clock.now() },
    });
    d.steps.push(data);
  }
}
