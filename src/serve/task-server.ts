import { Server, type JSONRPCRequest, type Result, type ServerContext } from '@modelcontextprotocol/server';

type Handler = (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>;

/** The SDK Server's multi-round-trip seam (`_invokeInputRequiredCapableHandler`, SDK 2.x): requestState, input_required. */
type InputRequiredSeam = (
  method: string,
  handler: Handler,
  request: JSONRPCRequest,
  ctx: ServerContext,
) => Promise<Result>;

/** Carries a `CreateTaskResult` past the SDK's `tools/call` result check, which knows no tasks extension. */
class TaskCreated extends Error {
  constructor(readonly result: Result) {
    super('A task was created (never shown: caught below).');
  }
}

/**
 * SDK v2's low-level `Server` for 2026-07-28 serving, minus its parses of every `tools/call` request
 * (twice: once where the handler is stored, once in this wrapping) and result, as `SessionServer` has
 * for 2025 sessions: `StatelessServing` checks the request by hand (`callRequest`, -32602 naming the
 * field) and builds every result in MCP's shape itself, a task's `CreateTaskResult` (`resultType:
 * 'task'`, which the SDK's result check would strip) included. Those parses cost a served call more
 * than its own work. The multi-round-trip seam stays: the SDK verifies `requestState` and checks an
 * `input_required` result as before. Every other method keeps the SDK's wrapping; if the seam is not
 * there (a different SDK version), `tools/call` keeps the SDK's checks too, a task's result let past them.
 */
export class TaskServer extends Server {
  protected override _wrapHandler(method: string, handler: Handler): Handler {
    if (method !== 'tools/call') return super._wrapHandler(method, handler);
    const seam = (this as unknown as { _invokeInputRequiredCapableHandler?: InputRequiredSeam })
      ._invokeInputRequiredCapableHandler;
    if (typeof seam === 'function') return (request, ctx) => seam.call(this, method, handler, request, ctx);
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
