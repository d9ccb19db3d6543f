import { ProtocolError, SdkError, SdkErrorCode, type Client } from '@modelcontextprotocol/client';
import type { Attributes, Histogram } from '@opentelemetry/api';
import { responseError } from '../telemetry/mcp-metrics.js';

/** Not operations with an answer to wait for: the listen stream lasts as long as the connection. */
const UNTIMED = new Set(['subscriptions/listen']);

/**
 * Records `mcp.client.operation.duration` for each request `client` makes (the SDK's own, such as
 * `initialize`, and the connection's `tools/list` and `tools/call`): from the request to its answer, with
 * the method, the tool of a `tools/call`, the protocol version, `peer` (the transport's attributes and
 * `wardrik.mcp.server`) and, on failure, `error.type`: the JSON-RPC error's code, `tool_error` (a result
 * with `isError`), `cancelled` (the runner stopped it or timed it out), `timeout`, `connection_closed`, or
 * `_OTHER`. The era probe (`server/discover`), which the SDK sends on its own path, is not timed.
 */
export function timeRequests(client: Client, histogram: Histogram, peer: Attributes): void {
  const request = client.request.bind(client) as (...args: unknown[]) => Promise<unknown>;
  const timed = (...args: unknown[]): Promise<unknown> => {
    const sent = request(...args);
    const message = args[0] as { method?: unknown; params?: { name?: unknown } } | undefined;
    const method = message?.method;
    if (typeof method !== 'string' || UNTIMED.has(method)) return sent;
    const start = performance.now();
    const tool = method === 'tools/call' ? message?.params?.name : undefined;
    const record = (failure: Attributes | undefined, negotiated?: unknown): void => {
      const version = typeof negotiated === 'string' ? negotiated : client.getNegotiatedProtocolVersion();
      histogram.record((performance.now() - start) / 1000, {
        ...peer,
        'mcp.method.name': method,
        ...(typeof tool === 'string' ? { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': tool } : {}),
        ...(version === undefined ? {} : { 'mcp.protocol.version': version }),
        ...failure,
      });
    };
    const signal = (args[2] as { signal?: AbortSignal } | undefined)?.signal;
    sent.then(
      (result) => record(responseError({ result }), (result as { protocolVersion?: unknown }).protocolVersion),
      (error: unknown) => record(failureOf(error, signal)),
    );
    return sent;
  };
  client.request = timed as Client['request'];
}

/** The `error.type` of a request that failed. */
function failureOf(error: unknown, signal: AbortSignal | undefined): Attributes {
  if (error instanceof ProtocolError) return responseError({ error: { code: error.code } })!;
  if (signal?.aborted === true) return { 'error.type': 'cancelled' };
  if (error instanceof SdkError) {
    if (error.code === SdkErrorCode.RequestTimeout) return { 'error.type': 'timeout' };
    if (error.code === SdkErrorCode.ConnectionClosed) return { 'error.type': 'connection_closed' };
  }
  return { 'error.type': '_OTHER' };
}
