import type { InitializeRequest, InitializeResult, Server } from '@modelcontextprotocol/server';
import type { Attributes } from '@opentelemetry/api';
import { mcpOperationMetrics, responseError } from '../telemetry/mcp-metrics.js';

/** How the server was reached, after the conventions: `tcp` over HTTP, `pipe` over the process's stdio. */
export function networkAttributes(over: 'http' | 'stdio' | undefined): Attributes {
  if (over === 'http') return { 'network.transport': 'tcp', 'network.protocol.name': 'http' };
  return over === 'stdio' ? { 'network.transport': 'pipe' } : {};
}

/**
 * Runs the handler of one request and records `mcp.server.operation.duration`: from the handler getting
 * the request to its answer, with `attributes` (the method, the tool, the protocol version, the
 * transport) and, on failure, `error.type`: the JSON-RPC error's code when it throws one (`_OTHER` for
 * anything else), `tool_error` for a tool's result with `isError`. Without a MeterProvider, just the handler.
 */
export function timedOperation<R>(attributes: () => Attributes, handle: () => R | Promise<R>): Promise<R> {
  const metrics = mcpOperationMetrics();
  if (metrics === undefined) return Promise.resolve(handle());
  const start = performance.now();
  const record = (failure: Attributes | undefined): void =>
    metrics.server.record((performance.now() - start) / 1000, { ...attributes(), ...failure });
  return new Promise<R>((resolve) => resolve(handle())).then(
    (result) => {
      record(responseError({ result }));
      return result;
    },
    (error: unknown) => {
      const code = (error as { code?: unknown } | null)?.code;
      record(
        typeof code === 'number'
          ? { 'error.type': String(code), 'rpc.response.status_code': String(code) }
          : { 'error.type': '_OTHER' },
      );
      throw error;
    },
  );
}

/**
 * Tells `noted` the protocol version a 2025-era session's `initialize` agreed on, by answering it with
 * the SDK's own handler (`_oninitialize`, in SDK 2.x as in 1.x); if that is not there, nothing changes.
 */
export function onInitialized(server: Server, noted: (version: string) => void): void {
  type Initialize = (request: InitializeRequest) => Promise<InitializeResult>;
  const initialize = (server as unknown as { _oninitialize?: Initialize })._oninitialize;
  if (typeof initialize !== 'function') return;
  server.setRequestHandler('initialize', async (request) => {
    const result = await initialize.call(server, request);
    noted(result.protocolVersion);
    return result;
  });
}
