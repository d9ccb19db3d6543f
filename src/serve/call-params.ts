import {
  ProtocolError,
  ProtocolErrorCode,
  type CallToolRequest,
  type StandardSchemaV1,
} from '@modelcontextprotocol/server';

/**
 * The params of a `tools/call` request as sent, unparsed (a Standard Schema that accepts anything):
 * `callRequest` checks them by hand. The SDK's full schema costs a served call more than its own work,
 * and a request it refused was answered -32603 (internal error), where JSON-RPC wants -32602.
 */
export const ANY_PARAMS: StandardSchemaV1<unknown, unknown> = {
  '~standard': { version: 1, vendor: 'wardrik', validate: (value) => ({ value }) },
};

/** A Standard Schema of a request's params: whatever `check` returns, or the issue it names. */
export function paramsSchema<T>(check: (params: Record<string, unknown>) => T | string): StandardSchemaV1<unknown, T> {
  return {
    '~standard': {
      version: 1,
      vendor: 'wardrik',
      validate: (value) => {
        const params = value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};
        const checked = check(params);
        return typeof checked === 'string' ? { issues: [{ message: checked }] } : { value: checked };
      },
    },
  };
}

/**
 * A `tools/call` request as MCP's schema defines it, or a JSON-RPC invalid-params error naming the
 * field that is wrong and what it should be. Fields MCP does not define are kept and ignored; `_meta`
 * was checked with the JSON-RPC envelope, by the SDK's transports. `task` is checked where it is one of
 * MCP's fields (2025-11-25); 2026-07-28 has none (tasks are an extension, declared in the envelope).
 */
export function callRequest(
  request: { readonly method: 'tools/call'; readonly params?: unknown },
  era: '2025' | '2026',
): CallToolRequest {
  const params = request.params;
  if (!isObject(params)) throw invalid('params', "an object with the tool's name and its arguments", params);
  if (typeof params.name !== 'string') throw invalid('params.name', "a string, the tool's name", params.name);
  if (params.arguments !== undefined && !isObject(params.arguments))
    throw invalid('params.arguments', 'an object of named arguments', params.arguments);
  const task = params.task;
  if (era === '2025' && task !== undefined) {
    if (!isObject(task)) throw invalid('params.task', 'an object such as { "ttl": 60000 }', task);
    if (task.ttl !== undefined && typeof task.ttl !== 'number')
      throw invalid('params.task.ttl', 'a number of milliseconds', task.ttl);
  }
  return request as CallToolRequest;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function invalid(field: string, wanted: string, got: unknown): ProtocolError {
  const kind =
    got === null ? 'null' : Array.isArray(got) ? 'an array' : got === undefined ? 'nothing' : `a ${typeof got}`;
  return new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `Invalid tools/call request: ${field} must be ${wanted}; got ${kind}. Nothing ran; send it again corrected.`,
  );
}
