import { checkAmount, type Measure, type ToolContext } from '../tools/context.js';


/**
 * The context of one attempt. Its `AbortController` is made only when the tool reads `signal` (or the
 * call must be stopped), since most calls never look and making one costs more than a fast tool call.
 */
export class CallContext implements ToolContext {
  /** What the tool reported spending, in US dollars; made on the first `cost`, as most tools never call it. */
  costs: number[] | undefined;
  measures: Measure[] | undefined;
  private controller: AbortController | undefined;
  private abortReason: unknown;
  private aborted = false;

  constructor(
    readonly agent: string,
    readonly run: string,
    readonly call: string,
    readonly attempt: number,
    readonly idempotencyKey: string,
    readonly labels: readonly string[],
  ) {}

  get signal(): AbortSignal {
    if (this.controller === undefined) {
      if (!this.aborted) return (this.controller = new AbortController()).signal;
      this.controller = new AbortController();
      this.controller.abort(this.abortReason);
    }
    return this.controller.signal;
  }

  /** Stops the attempt: the tool's signal aborts with `reason`. */
  abort(reason: unknown): void {
    this.aborted = true;
    this.abortReason = reason;
    this.controller?.abort(reason);
  }

  cost(usd: number): void {
    checkAmount('cost(usd)', usd);
    (this.costs ??= []).push(usd);
  }

  measure(unit: string, amount: number): void {
    checkAmount('measure(unit, amount)', amount);
    // A measure in US dollars is a cost, as in the seed's `measure(context, :usd, 0.01)`.
    if (unit === 'usd') (this.costs ??= []).push(amount);
    else (this.measures ??= []).push({ unit, amount });
  }
}

