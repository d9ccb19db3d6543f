import { Server, type JSONRPCRequest, type Result, type ServerContext } from '@modelcontextprotocol/server';

type Handler = (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>;

/** Carries a `CreateTaskResult` past the SDK's `tools/call` result check, which knows no tasks extension. */
class TaskCreated extends Error {
  constructor(readonly result: Result) {
    super('A task was created (never shown: caught below).');
  }
}

/**
 * The SDK's low-level `Server`, letting a `tools/call` handler answer the tasks extension's
 * `CreateTaskResult` (`resultType: 'task'`). The SDK (2.4) validates every `tools/call` result as a
 * `CallToolResult`, which would strip the task's fields; its encoder already passes a handler's own
 * `resultType` through for `tools/call`. Every other result is checked as before.
 */
export class TaskServer extends Server {
  protected override _wrapHandler(method: string, handler: Handler): Handler {
    if (method !== 'tools/call') return super._wrapHandler(method, handler);
    const checked = super._wrapHandler(method, async (request, ctx) => {
      const result = await handler(request, ctx);
      if ((result as { resultType?: unknown }).resultType === 'task') throw new TaskCreated(result);
      return result;
    });
    return async (request, ctx) => {
      try {
        return await checked(request, ctx);
      } catch (error) {
        if (error instanceof TaskCreated) return error.result;
        throw error;
      }
    };
  }
}
