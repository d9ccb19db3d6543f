import type { Span } from '@opentelemetry/api';

/**
 * The agents' `execute_tool` spans. An MCP hub sending a call under one adds the MCP conventions'
 * attributes to it (`mcp.method.name`, `mcp.protocol.version` …) rather than a span of its own, as the
 * conventions ask when a GenAI span already traces the tool's execution.
 */
const toolSpans = new WeakSet<Span>();

export function markToolSpan(span: Span): void {
  toolSpans.add(span);
}

export function isToolSpan(span: Span | undefined): span is Span {
  return span !== undefined && toolSpans.has(span);
}
