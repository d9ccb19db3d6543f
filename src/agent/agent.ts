/** Where a turn stands when `send` or `result` returns. */
export type TurnOutcome = 'done' | 'parked' | 'failed' | 'budget_spent';

/** A tool call a turn waits on: answer it with `wardrik.inbox.approve(inboxId)` (or deny / answer). */
export interface ParkedCall {
  readonly inboxId: string;
  /** The call's id in the run, as in its events. */
  readonly call: string;
  /** `toolset/tool` */
  readonly tool: string;
  readonly reason: string;
}

/** What one turn came to. */
export interface TurnResult {
  /** The turn's id: the `run` of its events and of its tools' context. */
  readonly run: string;
  readonly agent: string;
  readonly status: TurnOutcome;
  /** The model's last text (its answer when `done`). */
  readonly text: string;
  /** The calls the turn waits on when `parked`; empty otherwise. */
  readonly parked: readonly ParkedCall[];
  /** What this turn spent, in dollars: its model steps and its tools' costs. */
  readonly spentUsd: number;
  /** Model calls the turn made. */
  readonly steps: number;
  /** Why the turn failed or stopped, with what to do about it. */
  readonly error?: string;
}

/** Options of one `send`. */
export interface SendOptions {
  /** Stops the turn: the model call and running tools abort, and the turn ends as failed. */
  readonly signal?: AbortSignal;
}

/** What an agent asks of the service that runs its turns (`AgentService`). */
export interface AgentTurns {
  send(id: string, text: string, options: SendOptions): Promise<TurnResult>;
  result(id: string, run: string): Promise<TurnResult>;
}

/**
 * An agent: a model, instructions, tools chosen by pattern, a policy and a budget. Each `send` runs one
 * turn (model, tool calls, model … until an answer, a park, a failure or the budget) and keeps the
 * conversation for the next. Made by `wardrik.startAgent`.
 */
export class Agent {
  /** @internal */
  constructor(
    readonly id: string,
    /** `provider:model` */
    readonly model: string,
    private readonly service: AgentTurns,
  ) {}

  /** Runs one turn with `text` from the user; resolves when it is done, parked, failed or out of budget. */
  send(text: string, options: SendOptions = {}): Promise<TurnResult> {
    return this.service.send(this.id, text, options);
  }

  /**
   * The result of turn `run` at its next stop: at once when it has ended; for a running or parked turn,
   * when it ends (done, failed, budget_spent) or parks again on new calls. To wait for a parked turn,
   * call it before answering its calls:
   * `const next = agent.result(turn.run); await wardrik.inbox.approve(id); turn = await next;`
   */
  result(run: string): Promise<TurnResult> {
    return this.service.result(this.id, run);
  }
}
