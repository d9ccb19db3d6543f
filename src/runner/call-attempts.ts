import type { Clock, Timers } from '../clock.js';
import type { Store } from '../store/store.js';
import { addSpend } from '../store/journal-writes.js';
import type { EventBus } from '../telemetry/event-bus.js';
import { answerFrom, failureAnswer } from '../tools/call-tool.js';
import { isRepeatable } from '../tools/tool.js';
import { ToolTimeoutError } from '../errors.js';
import { toMicroUsd, toUsd } from '../money.js';
import { answerNotJournaled } from './call-failures.js';
import { CallContext } from './call-context.js';
import type { CallJournal } from './call-journal.js';
import { callReporter } from './call-reporter.js';
import type { Deadlines } from './deadlines.js';
import { isThenable, stoppedAnswer, type Tried, type Outcome, type PreparedCall } from './prepared-call.js';
import type { Maybe } from './maybe.js';
import { backoffDelay, isTransient, sleep } from './transient.js';

/** How attempts are timed and retried: the runner's options, checked. */
export interface AttemptSettings {
  readonly timeoutMs: number;
  readonly attempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  readonly random: () => number;
}

/**
 * The attempts of one call: each runs the tool under its time-out and the caller's signal, counts what
 * the tool reported spending, and after a transient failure of a repeatable tool journals the next
 * attempt and tries again after a backoff.
 */
export class CallAttempts {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly timers: Timers,
    private readonly events: EventBus,
    private readonly journal: CallJournal,
    private readonly deadlines: Deadlines,
    private readonly settings: AttemptSettings,
    /** The call's tool waits for a person now (see `CallContext.waitingForPerson`). */
    private readonly waiting: (p: PreparedCall, inboxId: string, reason: string) => void,
  ) {}

  /**
   * Runs the call's attempts from attempt `first` to its answer: each one's costs are counted, and more
   * attempts run while they may help (only repeatable tools get more than one, and only after transient
   * failures). Each retry is journaled `started` before it runs.
   */
  run(p: PreparedCall, first: number): Maybe<Tried> {
    const ctx = this.contextOf(p, first);
    const outcome = this.attempt(p, ctx);
    // Most calls: one attempt that returned at once, with nothing to count, answered without a wait.
    if (!(outcome instanceof Promise) && 'returned' in outcome && ctx.costs === undefined && ctx.measures === undefined)
      return { answer: answerFrom(p.entry.tool, outcome.returned), attempt: first };
    return this.untilAnswered(p, first, ctx, outcome);
  }

  private async untilAnswered(p: PreparedCall, first: number, ctx: CallContext, made: Maybe<Outcome>): Promise<Tried> {
    const tool = p.entry.tool;
    // Guard (retry-only-repeatable): a tool not safe to repeat gets one attempt.
    const limit = first - 1 + (isRepeatable(tool) ? this.settings.attempts : 1);
    let outcome = await made;
    for (let attempt = first; ; attempt++) {
      // Costs are counted whatever the attempt's outcome; measures are reported with the call's last event.
      if (ctx.costs !== undefined)
        await this.recordCosts(p, ctx.costs).catch((error: unknown) => {
          throw answerNotJournaled(p, 'add its cost to the spend', error);
        });
      if (ctx.measures !== undefined) (p.spent.measures ??= []).push(...ctx.measures);
      if ('returned' in outcome) return { answer: answerFrom(tool, outcome.returned), attempt };
      if (p.signal?.aborted === true) return { answer: stoppedAnswer(p), attempt };
      // An attempt whose tool waited for a person is the last: a retry would ask them again, as a question the
      // turn parked on the first one does not wait on (it would wait unseen).
      // Guard (no-retry-after-question): a call whose tool asked a person is not tried again.
      if (attempt >= limit || !isTransient(outcome.threw) || ctx.askedPerson)
        return { answer: failureAnswer(tool, outcome.threw), attempt };
      const delayMs = backoffDelay(attempt, this.settings.baseDelayMs, this.settings.maxDelayMs, this.settings.random);
      // Journal before effect, for a retry too: if another node took the call meanwhile, it is theirs.
      if (!(await this.journal.writeStarted(p, attempt + 1, 'started')))
        return { answer: await this.journal.journaledAnswer(p.run, p.call, p.arguments), attempt, lost: true };
      const reason = (outcome.threw as Error)?.message ?? String(outcome.threw);
      this.events.emit({
        type: 'tool.retrying',
        agent: p.agent,
        run: p.run,
        call: p.call,
        tool: p.tool,
        attempt: attempt + 1,
        delayMs,
        reason,
      });
      if (!(await sleep(this.timers, delayMs, p.signal))) return { answer: stoppedAnswer(p), attempt };
      ctx = this.contextOf(p, attempt + 1);
      outcome = await this.attempt(p, ctx);
    }
  }

  private contextOf(p: PreparedCall, attempt: number): CallContext {
    return new CallContext(
      p.agent,
      p.run,
      p.call,
      attempt,
      p.idempotencyKey,
      p.labels,
      callReporter(this.events, p, p.reporter),
      p.caller,
    );
  }

  /** One attempt under one timer; synchronous when the tool is, since most are. */
  private attempt(p: PreparedCall, ctx: CallContext): Outcome | Promise<Outcome> {
    const tool = p.entry.tool;
    p.spent.ran = true;
    try {
      const result = tool.run(p.args as never, ctx);
      return isThenable(result)
        ? this.raceDeadline(result, ctx, tool.annotations.timeout ?? this.settings.timeoutMs, p)
        : { returned: result };
    } catch (error) {
      return { threw: error };
    }
  }

  /**
   * Waits for the tool, its time-out or the caller's stop, whichever comes first. While the tool waits
   * for a person (`ctx.waitingForPerson`) the time-out is paused, and the time left runs again once
   * the person answered: a person's wait is bounded by its own limit (`elicitationWaitMs`), not the call's.
   */
  private raceDeadline(result: PromiseLike<unknown>, ctx: CallContext, ms: number, p: PreparedCall): Promise<Outcome> {
    const signal = p.signal;
    return new Promise<Outcome>((resolve) => {
      let stop: (() => void) | undefined;
      let settled = false;
      const finish = (outcome: Outcome): void => {
        settled = true;
        this.deadlines.cancel(deadline);
        if (stop !== undefined) signal?.removeEventListener('abort', stop);
        resolve(outcome);
      };
      // The outcome is decided before the tool is told to stop, so nothing the tool does then can hold it.
      const expire = (): void => {
        const error = new ToolTimeoutError(p.entry.name, ms, isRepeatable(p.entry.tool), ctx.askedPerson);
        finish({ threw: error });
        ctx.abort(error);
      };
      let deadline = this.deadlines.add(ms, expire);
      let asking = 0;
      let leftMs = ms;
      ctx.waitingForPerson = (inboxId, reason) => {
        if (settled) return () => undefined;
        ctx.askedPerson = true;
        if (asking++ === 0) {
          this.deadlines.cancel(deadline);
          leftMs = Math.max(0, deadline.at - this.clock.now());
        }
        this.waiting(p, inboxId, reason);
        let answered = false;
        return () => {
          if (answered) return;
          answered = true;
          if (--asking === 0 && !settled) deadline = this.deadlines.add(leftMs, expire);
        };
      };
      // Only a caller's signal needs a listener (most calls come without one).
      if (signal !== undefined) {
        stop = (): void => {
          finish({ threw: signal.reason });
          ctx.abort(signal.reason);
        };
        signal.addEventListener('abort', stop, { once: true });
        if (signal.aborted) stop();
      }
      result.then(
        (returned) => finish({ returned }),
        (threw: unknown) => finish({ threw }),
      );
    });
  }

  private async recordCosts(p: PreparedCall, costs: readonly number[]): Promise<void> {
    for (const usd of costs) {
      const microUsd = toMicroUsd(usd);
      p.spent.microUsd += microUsd;
      const totalMicroUsd = await addSpend(this.store, p.agent, microUsd, p.spent.account);
      this.events.emit({
        type: 'cost',
        agent: p.agent,
        run: p.run,
        call: p.call,
        source: 'tool',
        usd,
        totalUsd: toUsd(totalMicroUsd),
        totalMicroUsd,
        ...(p.budgetUsd === undefined ? {} : { budgetUsd: p.budgetUsd }),
      });
    }
  }
}
