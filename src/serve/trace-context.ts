import type { Attributes } from '@opentelemetry/api';
import { loadOtelApi } from '../telemetry/otel-api.js';

/** A served call's span; every method a no-op when OpenTelemetry is not installed or not sampling. */
export interface ServedCallSpan {
  /** Runs `work` with the span active, so the tool's own spans are its children (given a context manager). */
  within<T>(work: () => Promise<T>): Promise<T>;
  /** The call's outcome (`ok`, `error`, `parked`…): an `error` marks the span failed. */
  settled(status: string): void;
  end(): void;
}

const NOOP: ServedCallSpan = Object.freeze({
  within: <T>(work: () => Promise<T>) => work(),
  settled() {},
  end() {},
});

/** W3C trace context's `traceparent`: version 00, a trace id and a parent span id, neither all zeros. */
const TRACEPARENT = /^00-(?!0{32})([0-9a-f]{32})-(?!0{16})([0-9a-f]{16})-([0-9a-f]{2})$/;

/**
 * The span of a call an MCP client made (`execute_tool {tool}`, kind SERVER), a child of the caller's
 * span when the request's `_meta` carries a valid `traceparent` (SEP-414), so one trace runs from the
 * agent through a hub into this server. A malformed `traceparent` is ignored: the span starts a trace.
 * `attributes` are the MCP conventions' (`mcp.method.name`, `mcp.protocol.version`, `mcp.session.id` …).
 */
export async function servedCallSpan(
  meta: Record<string, unknown> | undefined,
  tool: string,
  attributes: Attributes,
): Promise<ServedCallSpan> {
  const api = await loadOtelApi();
  if (api === undefined) return NOOP;
  let parent = api.context.active();
  const traceparent = meta?.traceparent;
  const match = typeof traceparent === 'string' ? TRACEPARENT.exec(traceparent) : null;
  if (match !== null) {
    const tracestate = meta?.tracestate;
    parent = api.trace.setSpanContext(api.ROOT_CONTEXT, {
      traceId: match[1]!,
      spanId: match[2]!,
      traceFlags: Number.parseInt(match[3]!, 16) & 1,
      isRemote: true,
      ...(typeof tracestate === 'string' ? { traceState: api.createTraceState(tracestate) } : {}),
    });
  }
  const span = api.trace.getTracer('wardrik').startSpan(
    `execute_tool ${tool}`,
    {
      kind: api.SpanKind.SERVER,
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': tool,
        'gen_ai.tool.type': 'function',
        ...attributes,
      },
    },
    parent,
  );
  if (!span.isRecording()) return NOOP;
  const active = api.trace.setSpan(parent, span);
  return {
    within: (work) => api.context.with(active, work),
    settled(status) {
      if (status !== 'error') return;
      span.setStatus({ code: api.SpanStatusCode.ERROR });
    },
    end: () => span.end(),
  };
}
