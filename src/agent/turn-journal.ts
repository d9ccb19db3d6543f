import type { Clock } from '../clock.js';
import { toMicroUsd, toUsd } from '../money.js';
import type { Store } from '../store/store.js';
import type { EventBus } from '../telemetry/event-bus.js';
import { assistantMessage, type ModelStepData, type StepData } from './messages.js';
import { storedStep } from './turn-data.js';
import type { LiveTurn } from './turn-state.js';

/**
 * A turn's steps in the journal: each model response (after its cost is counted) and each step's tool
 * answers, in order. A step is held in the turn's `JournalBatch` and committed with the run's next
 * write: a model step with its calls' `started` records, before any of them runs. An index another node
 * wrote first stops this node at that commit (a `ConflictError`): it is driving the turn.
 */
export class TurnJournal {
  constructor(
    private readonly store: Store,
    private readonly events: EventBus,
    private readonly clock: Clock,
  ) {}

  /** Counts the step's cost, then holds it for the commit that starts its calls: both before any of them runs. */
  async recordModelStep(d: LiveTurn, step: ModelStepData): Promise<void> {
    const { rt } = d;
    // Spend first: a crash after it and before the journal asks the model again, which really costs again.
    const microUsd = toMicroUsd(step.usd);
    // A step that cost nothing (a free or scripted model) changes no total: not written (no commit), and
    // read only for a cost event someone listens to.
    if (rt.price !== undefined && (microUsd > 0 || this.events.listening)) {
      const totalMicroUsd = microUsd === 0 ? await this.store.getSpend(rt.id) : await this.store.addSpend(rt.id, microUsd);
      this.events.emit({ type: 'cost', agent: rt.id, run: d.run, source: 'model', usd: step.usd, totalUsd: toUsd(totalMicroUsd), totalMicroUsd });
    }
    if (rt.price !== undefined) d.spentUsd += step.usd;
    this.holdStep(d, step);
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
    });
  }

  /** Adds a step to the turn, held for the run's next commit. */
  holdStep(d: LiveTurn, data: StepData): void {
    d.journal.hold({ step: { run: d.run, index: d.steps.length, data: storedStep(data), createdAt: this.clock.now() } });
    d.steps.push(data);
  }
}
