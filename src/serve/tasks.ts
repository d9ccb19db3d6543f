import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js';
import type { Task } from '@modelcontextprotocol/sdk/types.js';

/**
 * Where one session's MCP tasks are kept (the SDK's in-memory store: a task lives as long as its
 * session; no other session can list or read it), and how a task's call is stopped: `tasks/cancel`
 * aborts the signal `track` gave it. The call's own state is in Wardrik's journal and inbox as usual.
 */
export class ServeTaskStore extends InMemoryTaskStore {
  private readonly stops = new Map<string, AbortController>();

  /** The signal that stops the task's call when the client cancels the task. */
  track(taskId: string): AbortSignal {
    const stop = new AbortController();
    this.stops.set(taskId, stop);
    return stop.signal;
  }

  untrack(taskId: string): void {
    this.stops.delete(taskId);
  }

  override async updateTaskStatus(
    taskId: string,
    status: Task['status'],
    statusMessage?: string,
    sessionId?: string,
  ): Promise<void> {
    await super.updateTaskStatus(taskId, status, statusMessage, sessionId);
    if (status === 'cancelled') this.stops.get(taskId)?.abort(new Error('The client cancelled the task.'));
  }

  /** Stops every task's call and the store's timers. */
  close(): void {
    for (const stop of this.stops.values()) stop.abort(new Error('The MCP server closed.'));
    this.stops.clear();
    this.cleanup();
  }
}
