import { Server, type JSONRPCRequest, type Result, type ServerContext } from '@modelcontextprotocol/server';

type Handler = (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>;

/**
 * SDK v2's low-level `Server` for one 2025-11-25 session, minus its parse of every `tools/call` request
 * and result: `ServeSession` checks the request by hand (answering a malformed one -32602 with the
 * field it names) and builds every result in MCP's shape itself. Those two parses cost a served call
 * more than its own work. Every other method keeps the SDK's wrapping.
 */
export class SessionServer extends Server {
  protected override _wrapHandler(method: string, handler: Handler): Handler {
    return method === 'tools/call' ? handler : super._wrapHandler(method, handler);
  }
}
