import type { Decision } from '../policy/policy.js';
import type { ParkedKind, Store } from '../store/store.js';
import { addLabels } from '../store/journal-writes.js';
import type { EventBus } from '../telemetry/event-bus.js';
import type { Measure } from '../tools/context.js';
import type { ToolAnswer } from '../tools/result.js';
import { toUsd } from '../money.js';
import type { CallRef } from './call-failures.js';
import type { CallListener } from './call-listener.js';
import type { JournalBatch } from './journal-batch.js';
import { callKey, ref } from './prepared-call.js';
import type { RunLeases } from './run-leases.js';

/**
 * Tells who needs to know where a call got to: the runner's caller through its `CallListener` (the
 * agent service counts spend and resumes turns by it), and `events$`, which only observes. Events are
 * not even built when nobody listens to them; the listener hears of every call either way.
 */
export class CallOutcomes {
  /** The runner's caller, told of calls that settle or park here. */
  listener: CallListener | undefined;
  /** Calls whose tool waited for a person here (by `callKey`), until they settle: their caller may have parked meanwhile. */
  private readonly askedPerson = new Set<string>();

  constructor(
    private readonly store: Store,
    private readonly events: EventBus,
    private readonly leases: Pick<RunLeases, 'addedLabels'>,
  ) {}

  /** A new call: `tool.called`, then `tool.decided` when the policy decided it. */
  called(base: CallRef, decision: Decision | undefined): void {
    if (!this.events.listening) return; // every call's path: no events built for nobody
    this.events.emit({ type: 'tool.called', ...ref(base) });
    if (decision !== undefined)
      this.events.emit({ type: 'tool.decided', ...ref(base), decision: decision.action, rule: decision.rule });
  }

  /** Adds the answer's labels to the run, announcing those it did not have. */
  async addLabels(base: CallRef, labels: readonly string[]): Promise<void> {
    if (labels.length === 0) return;
    const added = await addLabels(this.store, base.run, labels);
    this.leases.addedLabels(base.run, labels);
    if (added.length > 0) this.events.emit({ type: 'label.added', ...ref(base), labels: added });
  }

  /**
   * Adds the answer's labels to the run in `batch`, committed with the answer itself: a crash before that
   * commit loses both, and the call's next run brings them again. This node's calls see them at once
   * (the run's lease keeps them, and a read of the run's labels includes what the batch holds).
   * `known`: the labels the run had when the call started.
   */
  holdLabels(base: CallRef, known: readonly string[], labels: readonly string[], batch: JournalBatch): void {
    const held = batch.heldLabels(base.run);
    const added = [...new Set(labels)].filter((label) => !known.includes(label) && !held.includes(label));
    if (added.length === 0) return;
    batch.hold({ labels: { run: base.run, labels: added } });
    this.leases.addedLabels(base.run, added);
    this.events.emit({ type: 'label.added', ...ref(base), labels: added });
  }

  /**
   * The call's final answer is journaled: the listener hears it with what the call cost here
   * (`spentMicroUsd`), then `tool.succeeded` or `tool.failed`. `wasParked`: a person answered the call
   * or let it run.
   */
  settled(
    base: CallRef,
    answer: ToolAnswer,
    attempts: number,
    measures: readonly Measure[] | undefined,
    spentMicroUsd: number,
    wasParked: boolean,
  ): void {
    const asked = this.askedPerson.size > 0 && this.askedPerson.delete(callKey(base.run, base.call));
    this.listener?.settled(base, toUsd(spentMicroUsd), wasParked || asked);
    if (!this.events.listening) return; // every call's path: no events built for nobody
    const measured = measures === undefined ? {} : { measures };
    if (answer.status === 'ok')
      this.events.emit({ type: 'tool.succeeded', ...ref(base), attempts, labels: answer.labels, ...measured });
    else if (answer.status === 'error')
      this.events.emit({
        type: 'tool.failed',
        ...ref(base),
        code: answer.code,
        message: answer.message,
        attempts,
        ...measured,
      });
  }

  /**
   * The call's tool waits for a person (inbox item `inboxId`) while the call runs on: the listener may
   * park its turn, and hears `settled` with `wasParked` once the call's answer is journaled. The item's
   * own `tool.parked` event comes from whoever made it.
   */
  waiting(base: CallRef, inboxId: string, reason: string): void {
    this.askedPerson.add(callKey(base.run, base.call));
    this.listener?.waiting(base, inboxId, reason);
  }

  /** The call parked with inbox item `inboxId`, after costing `spentMicroUsd` here. */
  parked(base: CallRef, inboxId: string, kind: ParkedKind, reason: string, spentMicroUsd: number): void {
    this.listener?.parked(base, toUsd(spentMicroUsd));
    this.events.emit({ type: 'tool.parked', ...ref(base), inboxId, kind, reason });
  }
}
