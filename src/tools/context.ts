import { UsageError } from '../errors.js';

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
  /** Who called and through which door, as the app's auth established it; never from the model. */
  readonly caller: ToolCaller;
  /** Adds a paid API's cost, in US dollars, to the agent's spend. Twice adds both; counted even if the call then throws. */
  cost(usd: number): void;
  /**
   * Records a usage measure, such as (`tokens`, 1200), reported as `measures` on the call's
   * `tool.succeeded` or `tool.failed` event; a `usd` measure is a cost.
   */
  measure(unit: string, amount: number): void;
  /**
   * Tells the caller how far the call has come, such as (3, 10): an MCP client that asked for progress
   * gets a progress notification. `progress` only grows; `total` when known. A no-op when nobody listens.
   */
  progress(progress: number, total?: number, message?: string): void;
  /** Sends the caller a log message (an MCP logging notification, at the client's chosen level); a no-op when nobody listens. */
  log(level: LogLevel, data: unknown): void;
}

/**
 * Who made a call, as Wardrik knows it from the request, never from the model's arguments.
 * - `mcp`: a client of `wardrik.mcpServer`; `principal` is who the server's auth (the bearer token's
 *   `clientId`, or the user a NestJS guard set) says it is, `client` the name it gave in `initialize`.
 * - `agent`: an agent's turn (`agent` on the context is its id).
 * - `app`: the app's own code through `wardrik.runner.run`, with the `caller` it passed, if any.
 * - `resumed`: a call run later than its request, after a person's approval or by recovery after a crash:
 *   the request is gone, so only `agent` and `ctx.run` say whose it was.
 */
export interface ToolCaller {
  readonly door: 'mcp' | 'agent' | 'app' | 'resumed';
  /** The authenticated identity, when the door's auth established one. */
  readonly principal?: string;
  /** What the MCP client calls itself (`clientInfo.name`): its own word, never proof. */
  readonly client?: string;
}

/** MCP's (syslog's) log levels, least severe first. */
export type LogLevel = 'debug' | 'info' | 'notice' | 'warning' | 'error' | 'critical' | 'alert' | 'emergency';

/** Where a call's `ctx.progress` and `ctx.log` go: the MCP session that made the call, when one did. */
export interface CallReporter {
  progress(progress: number, total: number | undefined, message: string | undefined): void;
  log(level: LogLevel, data: unknown): void;
}

/** A cost or measure recorded by a tool during one call. */
export interface Measure {
  readonly unit: string;
  readonly amount: number;
}

/** Checks an amount passed to `cost` or `measure`: a tool's bug should fail its call, not corrupt a budget. */
export function checkAmount(what: string, amount: number): void {
  if (typeof amount !== 'number' || !Number.isFinite(amount) || amount < 0) {
    throw new UsageError(
      `${what} takes a finite number of at least 0; got ${String(amount)}. Nothing was added; fix the tool to pass one.`,
    );
  }
}
