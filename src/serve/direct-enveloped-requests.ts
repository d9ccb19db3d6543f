import {
  RELATED_TASK_META_KEY,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type Server,
  type Transport,
} from '@modelcontextprotocol/server';
import { connectWithDirectRequests, isPlainRequest } from './direct-requests.js';

/**
 * `server` (a 2026-07-28 one, which `serveStdio` connects to its connection's channel) with the
 * channel's well-formed requests handed straight to the SDK Protocol's dispatch, as the 2025 path's
 * sessions have theirs (see `connectWithDirectRequests`): every 2026-07-28 request carries the envelope
 * in `_meta`, so without this none would skip the Protocol's three zod checks (result? error? request?),
 * about 3 µs of a served call's server CPU over stdio. `connected` is told the channel it was
 * connected to (a `DirectWire` follows it, to pass such requests to it past `serveStdio`'s own checks).
 */
export function withDirectEnvelopedRequests(server: Server, connected?: (channel: Transport) => void): Server {
  const connect = server.connect.bind(server);
  server.connect = async (channel) => {
    await connectWithDirectRequests(server, channel, isEnvelopedRequest, connect);
    connected?.(channel);
  };
  return server;
}

/** Whether `message` is a request MCP's JSON-RPC request schema accepts, `_meta` included. */
export function isEnvelopedRequest(message: JSONRPCMessage): message is JSONRPCRequest {
  return isPlainRequest(message, isPlainRequestMeta);
}

/**
 * Whether a request's `_meta` is one the schema accepts, checked as it does: an object, whose
 * `progressToken` is absent, a string or an integer. One with a related task goes to its checks.
 */
function isPlainRequestMeta(meta: unknown): boolean {
  if (meta === null || typeof meta !== 'object' || Array.isArray(meta)) return false;
  const { progressToken } = meta as { progressToken?: unknown };
  if (progressToken !== undefined && typeof progressToken !== 'string' && !Number.isSafeInteger(progressToken))
    return false;
  return (meta as Record<string, unknown>)[RELATED_TASK_META_KEY] === undefined;
}
