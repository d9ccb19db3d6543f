import type { ValidateFunction } from 'ajv';
import type { CallToolResult, Tool as McpTool } from '@modelcontextprotocol/client';
import { compiledSchema, schemaProblem, toolsAjv } from '../tools/json-schema.js';

/**
 * A page of `tools/list` as the hub reads it, in place of the SDK's `client.listTools()`. The SDK checks
 * a listing with zod, building a copy of every tool (about 0.3 s for 20,000 tools, 0.9 s the first time,
 * with the event loop held), and then compiles every listed tool's `outputSchema` at once, running any
 * regular expression it holds on each result. Here only the outline is checked (a list of objects with
 * a string `name`); each tool's fields are checked where the hub adapts it, and its output schema is
 * compiled on its first result (`structuredOutput`).
 */
export const TOOLS_PAGE = {
  '~standard': {
    version: 1 as const,
    vendor: 'wardrik',
    validate(value: unknown): { value: ToolsPage } | { issues: [{ message: string }] } {
      const problem = pageProblem(value);
      return problem === undefined
        ? { value: value as ToolsPage }
        : { issues: [{ message: `The tools/list answer is not valid MCP: ${problem}.` }] };
    },
  },
};

/** One page of a server's tools. */
export interface ToolsPage {
  readonly tools: McpTool[];
  readonly nextCursor?: string;
}

function pageProblem(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'it is not an object';
  const { tools, nextCursor } = value as { tools?: unknown; nextCursor?: unknown };
  if (!Array.isArray(tools)) return '"tools" is not a list';
  for (let i = 0; i < tools.length; i++) {
    const tool = tools[i] as { name?: unknown } | null;
    if (tool === null || typeof tool !== 'object' || Array.isArray(tool) || typeof tool.name !== 'string')
      return `tools[${i}] is not an object with a "name"`;
  }
  if (nextCursor !== undefined && typeof nextCursor !== 'string') return '"nextCursor" is not a string';
  return undefined;
}

/**
 * A tool's structured results checked against its `outputSchema`, as MCP asks of a client: a result
 * that is not an error must have `structuredContent`, and it must match. The schema was read when the
 * tool was listed (`schemaProblem`); it is compiled on the first result, once per digest.
 */
export function structuredOutput(outputSchema: object, where: string): (result: CallToolResult) => void {
  let validate: ValidateFunction | undefined;
  return (result) => {
    if (result.isError === true) return;
    if (result.structuredContent === undefined)
      throw new Error(
        `${where} has an output schema but answered without structured content; the server needs fixing.`,
      );
    validate ??= compiledSchema(outputSchema);
    if (!validate(result.structuredContent)) {
      throw new Error(
        `${where} answered with structured content that does not match its output schema (${toolsAjv().errorsText(validate.errors)}); the server needs fixing.`,
      );
    }
  };
}

/** Why a tool's output schema cannot be used (see `schemaProblem`), or `undefined`. */
export function outputSchemaProblem(outputSchema: unknown): string | undefined {
  if (outputSchema === null || typeof outputSchema !== 'object' || Array.isArray(outputSchema))
    return 'its output schema is not an object';
  return schemaProblem(outputSchema, 'output schema');
}
