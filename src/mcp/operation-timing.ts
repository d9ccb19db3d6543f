import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/client';
import type { Attributes, Histogram } from '@opentelemetry/api';
import { responseError } from '../telemetry/mcp-metrics.js';

/** Requests awaiting their response on one connection, timed; past this many, new ones are not timed. */
const MAX_PENDING = 10_000;

/**
 * `mcp.client.operation.duration` for one connection's requests: timed from the transport's send to the
 * response the transport hands the SDK, with the method, the tool of a `tools/call`, the protocol
 * version, the transport's attributes and, on failure, `error.type`: the JSON-RPC error code, `tool_error`
 * (a result with `isError`), `cancelled` (the hub sent `notifications/cancelled`: the runner stopped or
 * timed the call out), `connection_closed` (it closed with the request unanswered), or `_OTHER` (it could
 * not be sent). The era probe (`server/discover`) is not timed: the SDK keeps its answer from the transport's
 * listeners.
 */
export class OperationTiming {
  private readonly pending = new Map<RequestId, { readonly start: number; readonly attributes: Attributes }>();

  constructor(
    private readonly histogram: Histogram,
    /** The connection's own attributes: transport, server address, `wardrik.mcp.server`. */
    private readonly peer: Attributes,
    /** The protocol version the connection negotiated, once it has. */
    private readonly version: () => string | undefined,
  ) {}

  /** A message goes out; `sending` is the transport's send of it. */
  sent(message: JSONRPCMessage, sending: Promise<void>): Promise<void> {
    if (!('method' in message)) return sending;
    if (!('id' in message)) {
      if (message.method === 'notifications/cancelled') {
        const id = (message.params as { requestId?: RequestId } | undefined)?.requestId;
        if (id !== undefined) this.ended(id, { 'error.type': 'cancelled' });
      }
      return sending;
    }
    if (message.method === 'server/discover' || this.pending.size >= MAX_PENDING) return sending;
    const attributes: Attributes = { 'mcp.method.name': message.method };
    const tool = message.method === 'tools/call' ? (message.params as { name?: unknown } | undefined)?.name : undefined;
    if (typeof tool === 'string') {
      attributes['gen_ai.operation.name'] = 'execute_tool';
      attributes['gen_ai.tool.name'] = tool;
    }
    const id = message.id;
    this.pending.set(id, { start: performance.now(), attributes });
    return sending.catch((error: unknown) => {
      this.ended(id, { 'error.type': '_OTHER' });
      throw error;
    });
  }

  /** A message comes in, before the SDK reads it. */
  received(message: JSONRPCMessage): void {
    if ('method' in message || !('id' in message) || message.id === undefined) return;
    const response = message as { id: RequestId; error?: { code?: unknown }; result?: unknown };
    const negotiated = (response.result as { protocolVersion?: unknown } | undefined)?.protocolVersion;
    this.ended(response.id, responseError(response), typeof negotiated === 'string' ? negotiated : undefined);
  }

  /** The connection closed: what it never answered ended with it. */
  closed(): void {
    for (const id of [...this.pending.keys()]) this.ended(id, { 'error.type': 'connection_closed' });
  }

  private ended(id: RequestId, failure: Attributes | undefined, negotiated?: string): void {
    const pending = this.pending.get(id);
    if (pending === undefined) return;
    this.pending.delete(id);
    const version = negotiated ?? this.version();
    this.histogram.record((performance.now() - pending.start) / 1000, {
      ...this.peer,
      ...pending.attributes,
      ...(version === undefined ? {} : { 'mcp.protocol.version': version }),
      ...failure,
    });
  }
}
