import type { Attributes, Histogram } from '@opentelemetry/api';
import { instrumentsOfProvider } from './meter-cache.js';

/**
 * The MCP semantic conventions' operation metrics (docs/events.md): `mcp.client.operation.duration` for
 * the requests a hub sends, `mcp.server.operation.duration` for the calls a Wardrik server answers.
 * Only when the app registered a MeterProvider and `@opentelemetry/api` is loaded (a hub loads it as it
 * starts, `Wardrik.create` when there is a provider); otherwise `undefined`, and nothing is measured.
 */
export interface McpOperationMetrics {
  readonly client: Histogram;
  readonly server: Histogram;
}

/** The conventions' bucket boundaries for both, in seconds. */
const MCP_SECONDS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

/** The MCP histograms, or `undefined` when there is no MeterProvider to record them to. */
export const mcpOperationMetrics = instrumentsOfProvider<McpOperationMetrics>((meter) => ({
  client: meter.createHistogram('mcp.client.operation.duration', {
    description:
      'The duration of the MCP request as observed on the sender from the time it was sent until the response is received.',
    unit: 's',
    advice: { explicitBucketBoundaries: MCP_SECONDS },
  }),
  server: meter.createHistogram('mcp.server.operation.duration', {
    description:
      'MCP request duration as observed on the receiver from the time it was received until the result is sent.',
    unit: 's',
    advice: { explicitBucketBoundaries: MCP_SECONDS },
  }),
}));

/** The attributes of a `tools/call` operation (and its span), after the conventions. */
export function toolCallAttributes(tool: string): Attributes {
  return { 'mcp.method.name': 'tools/call', 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': tool };
}

/**
 * `error.type` (and `rpc.response.status_code`) of a response: the JSON-RPC error's code, or `tool_error`
 * for a tool's result with `isError`; none for a success.
 */
export function responseError(response: { error?: { code?: unknown }; result?: unknown }): Attributes | undefined {
  if (response.error !== undefined) {
    const code = String(response.error.code);
    return { 'error.type': code, 'rpc.response.status_code': code };
  }
  const result = response.result as { isError?: unknown } | undefined;
  return result?.isError === true ? { 'error.type': 'tool_error' } : undefined;
}
