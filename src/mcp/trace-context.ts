import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import type { Attributes, SpanContext } from '@opentelemetry/api';
import { loadedOtelApi, loadOtelApi } from '../telemetry/otel-api.js';
import { isToolSpan } from '../telemetry/tool-spans.js';

/** The `_meta` key of W3C trace context in MCP requests (SEP-414). */
export const TRACEPARENT_META = 'traceparent';
export const TRACESTATE_META = 'tracestate';

/**
 * Loads `@opentelemetry/api` once, if the app has it (a hub calls it as it starts): from then on each
 * request sent to an MCP server carries the current span's trace context. Without it, nothing is added.
 */
export async function loadTraceContext(): Promise<void> {
  await loadOtelApi();
}

/** The W3C `traceparent` of a span. */
function traceparentOf(span: SpanContext): string {
  return `00-${span.traceId}-${span.spanId}-${(span.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

/**
 * `message` with the current `traceparent` in its `params._meta`, when it is a request and a span is
 * current (and its `tracestate`, when it has one); any `traceparent` already there stays. Other messages, and requests outside a trace, unchanged.
 * A `tools/call` sent under an agent's `execute_tool` span adds the MCP attributes to that span: `peer`'s
 * (the connection's) with the method and the request id.
 */
export function withTraceparent(message: JSONRPCMessage, peer?: () => Attributes): JSONRPCMessage {
  if (!('method' in message) || !('id' in message)) return message;
  const api = loadedOtelApi();
  if (api === undefined) return message;
  const active = api.context.active();
  if (message.method === 'tools/call' && peer !== undefined) {
    const span = api.trace.getSpan(active);
    if (isToolSpan(span))
      span.setAttributes({ ...peer(), 'mcp.method.name': 'tools/call', 'jsonrpc.request.id': String(message.id) });
  }
  const context = api.trace.getSpanContext(active);
  if (context === undefined || !api.trace.isSpanContextValid(context)) return message;
  const params = (message.params ?? {}) as { _meta?: Record<string, unknown> };
  if (params._meta?.[TRACEPARENT_META] !== undefined) return message;
  const state = context.traceState?.serialize();
  const meta = {
    ...params._meta,
    [TRACEPARENT_META]: traceparentOf(context),
    ...(state === undefined || state === '' ? {} : { [TRACESTATE_META]: state }),
  };
  return { ...message, params: { ...params, _meta: meta } };
}
