import type { Clock } from '../clock.js';
import { ConflictError } from '../errors.js';
import { toMicroUsd, toUsd } from '../money.js';
import type { Store } from '../store/store.js';
import type { EventBus } from '../telemetry/event-bus.js';
import { assistantMessage, type ModelStepData, type StepData } from './messages.js';
import { storedStep } from './turn-data.js';
import type { LiveTurn } from './turn-state.js';

/**
 * A turn's steps in the journal: each model response (after its cost is counted) and each step's tool
 * answers, appended in order. An index another node wrote first stops this node: it is driving the turn.
 */
export class TurnJournal {
  constructor(
    private readonly store: Store,
    private readonly events: EventBus,
    private readonly clock: Clock,
  ) {}

  /** Counts the step's cost, then journals it: both before any of its tool calls runs. */
  async recordModelStep(d: LiveTurn, step: ModelStepData): Promise<void> {
    const { rt } = d;
    // Spend first: a crash after it and before the journal asks the model again, which really costs again.
    if (rt.price !== undefined) {
      const totalMicroUsd = await this.store.addSpend(rt.id, toMicroUsd(step.usd));
      d.spentUsd += step.usd;
      this.events.emit({ type: 'cost', agent: rt.id, run: d.run, source: 'model', usd: step.usd, totalUsd: toUsd(totalMicroUsd), totalMicroUsd });
    }
    await this.appendStep(d, step);
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

  async appendStep(d: LiveTurn, data: StepData): Promise<void> {
    const index = d.steps.length;
    if (!(await this.store.appendStep({ run: d.run, index, data: storedStep(data), createdAt: this.clock.now() }))) {
      throw new ConflictError(`Turn "${d.run}" already has step ${index}: another node is driving it. This node stopped; the other one goes on.`);
    }
    d.steps.push(data);
  }
}
