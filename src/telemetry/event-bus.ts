// From rxjs's own modules (its package exports them): its index loads all 220 of its files, which took a
// tenth of `wardrik serve`'s start-up (startup.bench.ts); these are some 50. The classes are the same.
import { defer } from 'rxjs/internal/observable/defer';
import { from } from 'rxjs/internal/observable/from';
import { merge } from 'rxjs/internal/observable/merge';
import type { Observable } from 'rxjs/internal/Observable';
import { filter } from 'rxjs/internal/operators/filter';
import { Subject } from 'rxjs/internal/Subject';
import type { Clock } from '../clock.js';
import type { CostEvent, EventInput, ToolsChangedEvent, WardrikEvent } from './events.js';

/**
 * The one place events go through. Events emitted while Wardrik starts (skipped tools, warnings) are
 * kept and replayed to every subscriber, since nobody can subscribe before `Wardrik.create` returns;
 * later events go only to those subscribed when they happen.
 */
export class EventBus {
  private readonly subject = new Subject<WardrikEvent>();
  private readonly startup: WardrikEvent[] = [];
  private started = false;

  readonly events$: Observable<WardrikEvent> = defer(() => merge(from([...this.startup]), this.subject));
  readonly costs$: Observable<CostEvent> = this.events$.pipe(filter((e): e is CostEvent => e.type === 'cost'));
  readonly toolChanges$: Observable<ToolsChangedEvent> = this.events$.pipe(
    filter((e): e is ToolsChangedEvent => e.type === 'tools.changed'),
  );

  constructor(private readonly clock: Clock) {}

  /**
   * Whether an event emitted now would reach anyone. The call path asks first, so that it does not even
   * build the events nobody reads.
   */
  get listening(): boolean {
    return !this.started || this.subject.observed;
  }

  emit(input: EventInput): void {
    if (!this.listening) return;
    const event = { ...input, time: this.clock.now() } as WardrikEvent;
    // A start-up recovery pass's report is for those listening then (the metrics), not replayed.
    if (!this.started && event.type !== 'recovery.finished') this.startup.push(event);
    this.subject.next(event);
  }

  /** Start-up is over: from now on events are not kept. */
  markStarted(): void {
    this.started = true;
  }

  complete(): void {
    this.subject.complete();
  }
}
