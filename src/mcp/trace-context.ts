import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { loadedOtelApi, loadOtelApi } from '../telemetry/otel-api.js';

/** The `_meta` key of W3C trace context in MCP requests (SEP-414). */
export const TRACEPARENT_META = 'traceparent';

/**
 * Loads `@opentelemetry/api` once, if the app has it (a hub calls it as it starts): from then on each
 * request sent to an MCP server carries the current span's trace context. Without it, nothing is added.
 */
export async function loadTraceContext(): Promise<void> {
  await loadOtelApi();
}

/** The W3C `traceparent` of the span current where a request is sent, or `undefined` when there is none. */
export function currentTraceparent(): string | undefined {
  const api = loadedOtelApi();
  if (api === undefined) return undefined;
  const span = api.trace.getSpanContext(api.context.active());
  if (span === undefined || !api.trace.isSpanContextValid(span)) return undefined;
  return `00-${span.traceId}-${span.spanId}-${(span.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

/**
 * `message` with the current `traceparent` in its `params._meta`, when it is a request and a span is
 * current; any `traceparent` already there stays. Other messages, and requests outside a trace, unchanged.
 */
export function withTraceparent(message: JSONRPCMessage): JSONRPCMessage {
  if (!('method' in message) || !('id' in message)) return message;
  const traceparent = currentTraceparent();
  if (traceparent === undefined) return message;
  const params = (message.params ?? {}) as { _meta?: Record<string, unknown> };
  if (params._meta?.[TRACEPARENT_META] !== undefined) return message;
  return { ...message, params: { ...params, _meta: { ...params._meta, [TRACEPARENT_META]: traceparent } } };
}
