/**
 * What a tool receives beside its arguments. Wardrik fills every field; none comes from the model.
 */
export interface ToolContext {
  /** The calling agent's id, set by Wardrik, never by the model. Scope data by it. */
  readonly agent: string;
  /** The turn's id: the same `run` that its events carry. */
  readonly run: string;
  /** This call's id. */
  readonly call: string;
  /** 1 on the first try, 2 on the first retry, and so on. */
  readonly attempt: number;
  /** The same on every attempt of this call and after a crash: pass it to APIs that take one. */
  readonly idempotencyKey: string;
  /** Aborts when the call is stopped or times out: pass it to `fetch` and friends. */
  readonly signal: AbortSignal;
  /** The run's labels when the call started, such as `outside`. */
  readonly labels: readonly string[];
  /** Adds a paid API's cost, in US dollars, to the agent's spend. Twice adds both; counted even if the call then throws. */
  cost(usd: number): void;
  /**
   * Records a usage measure, such as (`tokens`, 1200), reported as `measures` on the call's
   * `tool.succeeded` or `tool.failed` event; a `usd` measure is a cost.
   */
  measure(unit: string, amount: number): void;
}

/** A cost or measure recorded by a tool during one call. */
export interface Measure {
  readonly unit: string;
  readonly amount: number;
}

/** Checks an amount passed to `cost` or `measure`: a tool's bug should fail its call, not corrupt a budget. */
export function checkAmount(what: string, amount: number): void {
  if (typeof amount !== 'number' || !Number.isFinite(amount) || amount < 0) {
    throw new TypeError(`${what} takes a finite number of at least 0; got ${String(amount)}.`);
  }
}
