import {
  CLIENT_CAPABILITIES_META_KEY,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
  type CallToolResult,
  type Result,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { errorAnswer, type ToolAnswer } from '../tools/result.js';
import type { CallRecord } from '../store/store.js';
import type { SessionDeps } from './session.js';
import type { Sealed, SealedTokens } from './sealed.js';
import { CONVERSATION_META } from '../mcp/labels-meta.js';
import { FAILED_INSIDE, warnFailedInside } from './failed-inside.js';
import { callAfterApproval } from './approved-call.js';
import type { Timer, Timers } from '../clock.js';

/** The 2026-07-28 tasks extension (SEP-2663): a client declares it in a request's `clientCapabilities`. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** A call not answered this soon becomes a task (a client that declared the extension need not hold a request open). */
export const TASK_AFTER_MS = 500;

/** How often a client is told to poll `tasks/get`. */
const POLL_INTERVAL_MS = 1000;

/** A task lives as long as its sealed id: a week (a person may take a weekend to answer). */
const TASK_TTL_MS = 7 * 24 * 3600 * 1000;

/** How many failed calls a node remembers for `tasks/get` (each is also a warning). */
const MAX_FAILED = 1000;

/** Who the inbox names as having refused a parked call whose task the client cancelled. */
const CANCELLED_BY = 'mcp-client (task cancelled)';

/** A task's id names its call: sealed, bound to the client, readable by every node with the same key. */
export type SealedTask = Extract<Sealed, { kind: 'task' }>;

type TaskStatus = 'working' | 'completed' | 'failed' | 'cancelled';

/** Whether the request declares the tasks extension in its per-request client capabilities. */
export function declaresTasks(ctx: ServerContext): boolean {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const capabilities = envelope?.[CLIENT_CAPABILITIES_META_KEY] as { extensions?: Record<string, unknown> } | undefined;
  const extensions = capabilities?.extensions;
  return extensions !== null && typeof extensions === 'object' && extensions[TASKS_EXTENSION] !== undefined;
}

/** The call a task runs, and what makes its result (with the conversation token, as any result). */
export interface TaskCall {
  readonly run: string;
  readonly call: string;
  readonly agent: string;
  /** Runs the call once; `signal` stops it when the client cancels the task. */
  readonly start: (signal: AbortSignal) => Promise<ToolAnswer>;
}

type MakeResult = (answer: ToolAnswer, run: string, agent: string, ctx: ServerContext) => Promise<CallToolResult>;

/**
 * The tasks extension for 2026-07-28 clients, without a session: a call that waits for a person, or
 * runs longer than `TASK_AFTER_MS`, answers with a task whose id is the call sealed like a
 * `requestState` (run, call, client). `tasks/get` reads the journal, so any node sharing the store and
 * key answers it; it never starts the call, except that an approved call not yet run is handed to this
 * node's recovery, which takes the run's lease: the call runs once, whatever the client polls or retries.
 */
export class StatelessTasks {
  /** The calls this node is running as tasks, by `run/call`: `tasks/cancel` aborts them here, `close` all of them. */
  private readonly running = new Map<string, { readonly stop: AbortController; readonly settled: Promise<unknown> }>();
  /** How many of them each agent has: a task outlives its request, so nothing else bounds them. */
  private readonly perAgent = new Map<string, number>();
  /**
   * Calls whose run failed inside the server here (the store, not the tool), by `run/call`: their task is
   * `failed` on this node; on another, `working` until recovery takes the run. The latest few only.
   */
  private readonly failed = new Set<string>();

  constructor(
    private readonly deps: SessionDeps,
    private readonly tokens: SealedTokens,
    private readonly result: MakeResult,
  ) {}

  /**
   * Starts the call. Answered at once when it finishes within `TASK_AFTER_MS` (the extension allows
   * it), else a `CreateTaskResult` once the call is in the journal, so `tasks/get` finds it anywhere.
   */
  async start(task: TaskCall, ctx: ServerContext): Promise<CallToolResult | Result> {
    // Guard (tasks-per-client): one client's tasks running here are bounded; past the bound its call does not run.
    if ((this.perAgent.get(task.agent) ?? 0) >= this.deps.settings.maxTasksPerClient) return this.full(task, ctx);
    const key = `${task.run}/${task.call}`;
    const stop = new AbortController();
    this.count(task.agent, 1);
    const { clock, timers } = this.deps;
    const createdAt = clock.now();
    const settled = task.start(stop.signal).finally(() => {
      this.running.delete(key);
      this.count(task.agent, -1);
    });
    this.running.set(key, { stop, settled });
    settled.catch((error: unknown) => this.failedHere(key, error));
    const first = await within(settled, TASK_AFTER_MS, timers);
    if (first !== undefined && first.status !== 'parked') return this.result(first, task.run, task.agent, ctx);
    // Durable before it is told: a task id `tasks/get` could not find would be a lie.
    while ((await this.deps.store.getCall(task.run, task.call)) === undefined) {
      // The client went away before it was told: the call goes on, as a task nobody polls.
      if (ctx.mcpReq.signal.aborted) throw new ProtocolError(ProtocolErrorCode.InternalError, 'The client went away.');
      const answer = await within(settled, 20, timers);
      if (answer !== undefined && answer.status !== 'parked') return this.result(answer, task.run, task.agent, ctx);
    }
    const sealed: SealedTask = { kind: 'task', run: task.run, call: task.call, agent: task.agent, at: createdAt };
    const taskId = await this.tokens.seal(sealed, ctx);
    const conversation = await this.tokens.seal({ kind: 'conversation', run: task.run, agent: task.agent }, ctx);
    const waiting = first?.status === 'parked' ? first : undefined;
    return {
      resultType: 'task',
      taskId,
      status: 'working',
      ...(waiting === undefined ? {} : { statusMessage: waitingMessage(waiting) }),
      createdAt: iso(createdAt),
      lastUpdatedAt: iso(clock.now()),
      ttlMs: TASK_TTL_MS,
      pollIntervalMs: POLL_INTERVAL_MS,
      _meta: { [CONVERSATION_META]: conversation },
    };
  }

  /** `tasks/get`: the task's state from the journal; its result (or cancellation) once it has one. */
  async get(taskId: unknown, agent: string, ctx: ServerContext): Promise<Result> {
    const task = await this.opened(taskId, agent, ctx);
    const record = await this.current(task);
    const base = {
      taskId,
      createdAt: iso(task.at),
      lastUpdatedAt: iso(record.updatedAt),
      ttlMs: TASK_TTL_MS,
      pollIntervalMs: POLL_INTERVAL_MS,
    };
    const answer = record.answer;
    if (record.state === 'started' && this.failed.has(`${task.run}/${task.call}`))
      return { ...base, status: 'failed' satisfies TaskStatus, error: { code: -32603, message: FAILED_INSIDE } };
    if (answer !== undefined && (record.state === 'succeeded' || record.state === 'failed')) {
      // Only `tasks/cancel` aborts a task's call (it is not tied to the request that started it).
      if (answer.status === 'error' && answer.code === 'aborted')
        return { ...base, status: 'cancelled' satisfies TaskStatus, statusMessage: answer.message };
      return {
        ...base,
        status: 'completed' satisfies TaskStatus,
        result: await this.result(answer, task.run, agent, ctx),
      };
    }
    const waiting = answer?.status === 'parked' ? waitingMessage(answer) : undefined;
    return {
      ...base,
      status: 'working' satisfies TaskStatus,
      ...(waiting === undefined ? {} : { statusMessage: waiting }),
    };
  }

  /**
   * `tasks/cancel`: a call running on this node is aborted; one waiting for a person is refused in the
   * inbox (so it can never run after); one a person already approved, or running on another node, goes on.
   */
  async cancel(taskId: unknown, agent: string, ctx: ServerContext): Promise<Result> {
    const task = await this.opened(taskId, agent, ctx);
    const record = await this.current(task);
    this.running.get(`${task.run}/${task.call}`)?.stop.abort(new Error('The client cancelled the task.'));
    if (record.state === 'parked' && record.inboxId !== undefined) {
      const item = await this.deps.store.getInboxItem(record.inboxId);
      // Guard (cancelled-task-never-runs): the item is refused, so no later approval can run the call.
      if (item?.status === 'pending') {
        const refused = { ...item, status: 'denied' as const, by: CANCELLED_BY, answeredAt: this.deps.clock.now() };
        if (await this.deps.store.updateInboxItem(refused, 'pending', item.revision)) {
          const answer = errorAnswer('aborted', 'The client cancelled the task before a person answered.', item.labels);
          await this.deps.runner.answerWithoutRunning(item, answer, 'parked', { verb: 'denied', by: CANCELLED_BY });
        }
      }
    }
    return {};
  }

  /** `tasks/update`: a Wardrik task never asks its client for input, so there is nothing to resume. */
  async update(taskId: unknown, agent: string, ctx: ServerContext): Promise<Result> {
    await this.opened(taskId, agent, ctx);
    return {};
  }

  /** Stops every call this node runs as a task (the server is closing, as a session's calls stop), once each has its answer. */
  async close(): Promise<void> {
    const running = [...this.running.values()];
    // Guard (tasks-stop-on-close): a task's call is tied to no request or session, so only this stops it.
    for (const { stop } of running) stop.abort(new Error('The MCP server closed.'));
    await Promise.allSettled(running.map(({ settled }) => settled));
  }

  /** Refuses a tasks method from a client that did not declare the extension (-32021, as SEP-2575 asks). */
  static requireDeclared(ctx: ServerContext, method: string): void {
    if (!declaresTasks(ctx))
      throw new MissingRequiredClientCapabilityError(
        { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
        `${method} needs the "${TASKS_EXTENSION}" extension in the request's clientCapabilities; declare it to use tasks.`,
      );
  }

  /** The task's call, after handing an approved one to recovery (see `callAfterApproval`). */
  private async current(task: SealedTask): Promise<CallRecord> {
    const record = await callAfterApproval(this.deps, task.run, task.call);
    if (record === undefined)
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        "This taskId names a call this server's store does not have (was the store reset?). Call the tool again.",
      );
    return record;
  }

  /** The answer to a call past `maxTasksPerClient`: an error the model can act on, the call unrun. */
  private full(task: TaskCall, ctx: ServerContext): Promise<CallToolResult> {
    const max = this.deps.settings.maxTasksPerClient;
    const message = `This client already has ${max} calls running as tasks on this server, the most it may; this call did not run. Wait for one to finish (tasks/get) or cancel one, then call again.`;
    return this.result(errorAnswer('unavailable', message), task.run, task.agent, ctx);
  }

  /** Adds `by` to the tasks `agent` has running here. */
  private count(agent: string, by: 1 | -1): void {
    const now = (this.perAgent.get(agent) ?? 0) + by;
    if (now > 0) this.perAgent.set(agent, now);
    else this.perAgent.delete(agent);
  }

  private failedHere(key: string, error: unknown): void {
    warnFailedInside(this.deps.warn, 'A served task', error);
    this.failed.add(key);
    if (this.failed.size > MAX_FAILED) this.failed.delete(this.failed.values().next().value!);
  }

  private async opened(taskId: unknown, agent: string, ctx: ServerContext): Promise<SealedTask> {
    const opened = typeof taskId === 'string' ? await this.tokens.open(taskId, ctx) : undefined;
    if (opened?.kind !== 'task' || opened.agent !== agent)
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        'Unknown taskId: this server gave this client no such task (or it expired). Use the taskId a tools/call answered you with.',
      );
    return opened;
  }
}

function waitingMessage(answer: Extract<ToolAnswer, { status: 'parked' }>): string {
  const item = answer.inboxId === undefined ? '' : ` (inbox item ${answer.inboxId})`;
  return `Waiting for a person${item}: ${answer.reason}`;
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** The answer if it comes within `ms`, else `undefined`; the timer goes as soon as either happens. */
async function within(answer: Promise<ToolAnswer>, ms: number, timers: Timers): Promise<ToolAnswer | undefined> {
  let timer: Timer | undefined;
  try {
    return await Promise.race([
      answer,
      new Promise<undefined>((resolve) => (timer = timers.after(ms, () => resolve(undefined)))),
    ]);
  } finally {
    timer?.cancel();
  }
}
