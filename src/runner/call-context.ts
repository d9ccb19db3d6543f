import { UsageError } from '../errors.js';
import {
  checkAmount,
  type CallReporter,
  type LogLevel,
  type Measure,
  type ToolCaller,
  type ToolContext,
} from '../tools/context.js';

const FROM_APP: ToolCaller = Object.freeze({ door: 'app' });

/**
 * The context of one attempt. Its `AbortController` is made only when the tool reads `signal` (or the
 * call must be stopped), since most calls never look and making one costs more than a fast tool call.
 */
export class CallContext implements ToolContext {
  /** What the tool reported spending, in US dollars; made on the first `cost`, as most tools never call it. */
  costs: number[] | undefined;
  measures: Measure[] | undefined;
  private controller: AbortController | undefined;
  private light: AttemptSignal | undefined;
  /** Why the attempt was stopped; `aborted` says whether it was. */
  abortReason: unknown;
  aborted = false;
  /**
   * @internal Set by the runner while an attempt runs under its time-out: the tool tells it that it now
   * waits for a person (an MCP server's question, inbox item `inboxId`). The time-out stops running and
   * the caller (an agent's turn) may park meanwhile; the returned function says the person answered.
   */
  waitingForPerson: ((inboxId: string, reason: string) => () => void) | undefined;
  /** @internal The tool waited for a person during this attempt (see `waitingForPerson`): it is the call's last. */
  askedPerson = false;

  constructor(
    readonly agent: string,
    readonly run: string,
    readonly call: string,
    readonly attempt: number,
    readonly idempotencyKey: string,
    readonly labels: readonly string[],
    private readonly reporter?: CallReporter,
    readonly caller: ToolCaller = FROM_APP,
  ) {}

  get signal(): AbortSignal {
    if (this.controller === undefined) {
      if (!this.aborted) return (this.controller = new AbortController()).signal;
      this.controller = new AbortController();
      this.controller.abort(this.abortReason);
    }
    return this.controller.signal;
  }

  /**
   * A stand-in for `signal` for code that only reads `aborted`, `reason`, `throwIfAborted()` and 'abort'
   * listeners, as the MCP SDK's requests do. In Node 20 an AbortController's signal costs ~5 µs to make
   * (more than the rest of a call), so Wardrik's own MCP tools use this; a tool's code gets the real one.
   */
  get lightSignal(): AbortSignal {
    return (this.light ??= new AttemptSignal(this)) as unknown as AbortSignal;
  }

  /** Stops the attempt: the tool's signal aborts with `reason`. */
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.abortReason = reason;
    this.controller?.abort(reason);
    this.light?.fire();
  }

  // Getters that hand out functions bound to this attempt, so a tool may take the context apart, as the
  // seeds' page writes it: `run: async ({ email }, { cost }) => { ...; cost(0.01); }`. Methods lost `this` there.
  get cost(): (usd: number) => void {
    return (usd) => {
      checkAmount('cost(usd)', usd);
      (this.costs ??= []).push(usd);
    };
  }

  get measure(): (unit: string, amount: number) => void {
    return (unit, amount) => {
      checkAmount('measure(unit, amount)', amount);
      // A measure in US dollars is a cost, as in the seed's `measure(context, :usd, 0.01)`.
      if (unit === 'usd') (this.costs ??= []).push(amount);
      else (this.measures ??= []).push({ unit, amount });
    };
  }

  get progress(): (progress: number, total?: number, message?: string) => void {
    return (progress, total, message) => {
      checkAmount('progress(progress)', progress);
      if (total !== undefined) checkAmount('progress(progress, total)', total);
      // A stopped attempt reports nothing more: its caller has its answer, or has gone.
      if (!this.aborted) this.reporter?.progress(progress, total, message);
    };
  }

  get log(): (level: LogLevel, data: unknown) => void {
    return (level, data) => {
      if (!LOG_LEVELS.has(level))
        throw new UsageError(
          `log(level, data) takes one of ${[...LOG_LEVELS].join(', ')}; got ${JSON.stringify(level)}. Nothing was logged; pass one of those levels.`,
        );
      if (!this.aborted) this.reporter?.log(level, data);
    };
  }
}

const LOG_LEVELS: ReadonlySet<string> = new Set([
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
]);

type AbortListener = ((event: Event) => void) | { handleEvent(event: Event): void };

/** See `CallContext.lightSignal`. */
class AttemptSignal {
  private listeners: AbortListener[] | undefined;
  onabort: ((event: Event) => void) | null = null;

  constructor(private readonly ctx: CallContext) {}

  get aborted(): boolean {
    return this.ctx.aborted;
  }

  get reason(): unknown {
    return this.ctx.abortReason;
  }

  throwIfAborted(): void {
    if (this.ctx.aborted) throw this.ctx.abortReason;
  }

  addEventListener(type: string, listener: AbortListener | null): void {
    if (type !== 'abort' || listener === null) return;
    // A literal of one, not a push: most attempts get one listener (the SDK's), and a first push reserves room for 17.
    if (this.listeners === undefined) this.listeners = [listener];
    else if (!this.listeners.includes(listener)) this.listeners.push(listener);
  }

  removeEventListener(type: string, listener: AbortListener | null): void {
    if (type === 'abort') this.listeners = this.listeners?.filter((candidate) => candidate !== listener);
  }

  /**
   * Calls each listener once, as an AbortSignal does (they are dropped after). As there, one that throws
   * stops neither the others nor the stop: its error is reported as uncaught.
   */
  fire(): void {
    const listeners = this.listeners ?? [];
    this.listeners = undefined;
    const event = new Event('abort');
    const each = (listener: AbortListener | null): void => {
      try {
        if (typeof listener === 'function') listener.call(this, event);
        else listener?.handleEvent(event);
      } catch (error) {
        process.nextTick(() => {
          throw error;
        });
      }
    };
    each(this.onabort);
    for (const listener of listeners) each(listener);
  }
}
