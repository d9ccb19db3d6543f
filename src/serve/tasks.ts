import { randomBytes } from 'node:crypto';
import {
  ProtocolError,
  ProtocolErrorCode,
  type CallToolResult,
  type Server,
  type Task,
} from '@modelcontextprotocol/server';
import type { Clock, Timer, Timers } from '../clock.js';
import { paramsSchema } from './call-params.js';

/** The `_meta` key a `tasks/result` answer names its task under (MCP 2025-11-25). */
const RELATED_TASK_META = 'io.modelcontextprotocol/related-task';
/** How many tasks one `tasks/list` page holds. */
const PAGE = 10;

type Status = Task['status'];

interface Kept {
  task: Task;
  result: CallToolResult | undefined;
  expiry: Timer | undefined;
  /** Told when the task's status changes: `tasks/result` waits on it. */
  readonly changed: Set<() => void>;
}

function terminal(status: Status): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}

/**
 * Where one session's MCP tasks (2025-11-25) are kept: in memory, as long as the session lives or the
 * task's ttl, whichever ends first; no other session can list or read them. `tasks/cancel` aborts the
 * signal `track` gave the task's call. The call's own state is in Wardrik's journal and inbox as usual.
 * SDK v2 serves no task methods, so `serveTasks` answers them from here.
 */
export class ServeTaskStore {
  private readonly tasks = new Map<string, Kept>();
  private readonly stops = new Map<string, AbortController>();

  constructor(
    private readonly clock: Clock,
    private readonly timers: Timers,
  ) {}

  createTask(params: { ttl: number | null; pollInterval: number }): Task {
    const now = new Date(this.clock.now()).toISOString();
    const task: Task = {
      taskId: randomBytes(16).toString('hex'),
      status: 'working',
      ttl: params.ttl,
      createdAt: now,
      lastUpdatedAt: now,
      pollInterval: params.pollInterval,
    };
    const kept: Kept = { task, result: undefined, expiry: undefined, changed: new Set() };
    this.tasks.set(task.taskId, kept);
    this.expireLater(kept);
    return { ...task };
  }

  getTask(taskId: string): Task | undefined {
    const kept = this.tasks.get(taskId);
    return kept === undefined ? undefined : { ...kept.task };
  }

  /** Ends the task with `result`; a task that ended already (cancelled meanwhile) keeps its end. */
  storeTaskResult(taskId: string, status: 'completed' | 'failed', result: CallToolResult): void {
    const kept = this.tasks.get(taskId);
    // Guard (task-end-kept): a cancelled task stays cancelled, whatever its call answers after.
    if (kept === undefined || terminal(kept.task.status)) return;
    kept.result = result;
    this.setStatus(kept, status, undefined);
    this.expireLater(kept);
  }

  updateTaskStatus(taskId: string, status: Status, statusMessage?: string): void {
    const kept = this.tasks.get(taskId);
    if (kept === undefined || terminal(kept.task.status)) return;
    this.setStatus(kept, status, statusMessage);
    if (status === 'cancelled') this.stops.get(taskId)?.abort(new Error('The client cancelled the task.'));
  }

  /** The signal that stops the task's call when the client cancels the task. */
  track(taskId: string): AbortSignal {
    const stop = new AbortController();
    this.stops.set(taskId, stop);
    return stop.signal;
  }

  untrack(taskId: string): void {
    this.stops.delete(taskId);
  }

  /** Stops every task's call and forgets every task. */
  close(): void {
    for (const stop of this.stops.values()) stop.abort(new Error('The MCP server closed.'));
    this.stops.clear();
    for (const kept of this.tasks.values()) {
      kept.expiry?.cancel();
      for (const wake of kept.changed) wake();
    }
    this.tasks.clear();
  }

  /** `tasks/get`, `tasks/result`, `tasks/list` and `tasks/cancel` on `server`, answered from this store. */
  serve(server: Server): void {
    const found = (taskId: string, what = 'Failed to retrieve task: Task not found'): Kept => {
      const kept = this.tasks.get(taskId);
      if (kept === undefined) throw new ProtocolError(ProtocolErrorCode.InvalidParams, what);
      return kept;
    };
    server.setRequestHandler('tasks/get', { params: TASK_ID }, ({ taskId }) => ({ ...found(taskId).task }));
    server.setRequestHandler('tasks/result', { params: TASK_ID }, async ({ taskId }, ctx) => {
      let kept = found(taskId, `Task not found: ${taskId}`);
      while (!terminal(kept.task.status)) {
        await this.changeOf(kept, ctx.mcpReq.signal);
        kept = found(taskId, `Task not found: ${taskId}`);
      }
      const result = kept.result;
      // A cancelled task has no result, and says so as SDK v1's store did.
      if (result === undefined)
        throw new ProtocolError(ProtocolErrorCode.InternalError, `Task ${taskId} has no result stored`);
      return { ...result, _meta: { ...result._meta, [RELATED_TASK_META]: { taskId } } };
    });
    server.setRequestHandler('tasks/list', { params: CURSOR }, ({ cursor }) => {
      const all = [...this.tasks.values()].map((kept) => ({ ...kept.task }));
      let from = 0;
      if (cursor !== undefined) {
        from = all.findIndex((task) => task.taskId === cursor) + 1;
        if (from === 0)
          throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Failed to list tasks: Invalid cursor: ${cursor}`);
      }
      const tasks = all.slice(from, from + PAGE);
      return {
        tasks,
        ...(from + PAGE < all.length ? { nextCursor: tasks[tasks.length - 1]!.taskId } : {}),
        _meta: {},
      };
    });
    server.setRequestHandler('tasks/cancel', { params: TASK_ID }, ({ taskId }) => {
      const kept = found(taskId, `Task not found: ${taskId}`);
      if (terminal(kept.task.status))
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `Cannot cancel task in terminal status: ${kept.task.status}`,
        );
      this.updateTaskStatus(taskId, 'cancelled', 'Client cancelled task execution.');
      return { _meta: {}, ...kept.task };
    });
  }

  private setStatus(kept: Kept, status: Status, statusMessage: string | undefined): void {
    const { statusMessage: _old, ...task } = kept.task;
    kept.task = {
      ...task,
      status,
      lastUpdatedAt: new Date(this.clock.now()).toISOString(),
      ...(statusMessage === undefined ? {} : { statusMessage }),
    };
    for (const wake of [...kept.changed]) wake();
  }

  /** Resolves on the task's next change, or when `signal` aborts (then rejects). */
  private changeOf(kept: Kept, signal: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const done = (): void => {
        kept.changed.delete(done);
        signal.removeEventListener('abort', stop);
        resolve();
      };
      const stop = (): void => {
        kept.changed.delete(done);
        reject(signal.reason);
      };
      if (signal.aborted) return stop();
      kept.changed.add(done);
      signal.addEventListener('abort', stop, { once: true });
    });
  }

  /** Forgets the task once its ttl passed, counted from now; a task without ttl lives with the session. */
  private expireLater(kept: Kept): void {
    kept.expiry?.cancel();
    const ttl = kept.task.ttl;
    if (typeof ttl !== 'number') return;
    const forget = () => {
      this.tasks.delete(kept.task.taskId);
      for (const wake of [...kept.changed]) wake();
    };
    kept.expiry = this.timers.after(ttl, forget, { background: true });
  }
}

const TASK_ID = paramsSchema((params) =>
  typeof params.taskId === 'string' ? { taskId: params.taskId } : 'params.taskId must be a string',
);

const CURSOR = paramsSchema((params) =>
  params.cursor === undefined || typeof params.cursor === 'string'
    ? { cursor: params.cursor as string | undefined }
    : 'params.cursor must be a string',
);
