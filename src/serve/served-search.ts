import type { Tool as McpTool } from '@modelcontextprotocol/server';
import { SEARCH_LIMIT, ToolIndex } from '../agent/tool-search.js';
import type { Policy, PolicyRule } from '../policy/policy.js';
import { NO_LABELS } from '../tools/result.js';
import { listedTool, type ServedTool, type ServedTools } from './naming.js';
import { SERVED_SEARCH_TOOL } from './served-search-tool.js';

/** What the served search tool answers: the tools found, as `tools/list` would give them. */
export interface ServedSearchAnswer {
  readonly found: readonly McpTool[];
  readonly note: string;
}

/** The search tool's answer as a tool result: its text, and the same as structured content. */
export function searchResult(answer: ServedSearchAnswer): {
  content: { type: 'text'; text: string }[];
  structuredContent: { [key: string]: unknown };
} {
  return { content: [{ type: 'text', text: JSON.stringify(answer) }], structuredContent: { ...answer } };
}

/** A search's query that is not one: the model can correct it. */
export function badQueryResult(message: string): { content: { type: 'text'; text: string }[]; isError: true } {
  return { content: [{ type: 'text', text: message }], isError: true };
}

/** A search's outcome: what it found, or why the query is not one. */
export type ServedSearchOutcome =
  { readonly answer: ServedSearchAnswer; readonly found: ServedTool[] } | { readonly badQuery: string };

/**
 * A server's catalog as each caller sees it (docs/mcp-server.md, "Large catalogs"): `tools/list` holds only
 * the tools the caller's policy does not deny whatever the arguments, and `wardrik__search_tools` finds
 * deferred ones the same way, with the index agents use (src/agent/tool-search.ts). The policy is asked with
 * no arguments and no labels; a call is decided again, fully, when it is made.
 */
export class ServedSearch {
  /** The index over the deferred tools, rebuilt when they change (an MCP server listed new ones). */
  private index: { readonly of: readonly ServedTool[]; readonly index: ToolIndex } | undefined;

  constructor(
    private readonly served: ServedTools,
    private readonly policy: Policy,
    private readonly rules: readonly PolicyRule[] | undefined,
  ) {}

  /** `tools/list` for `agent`: the listed tools and `also` (a session's found ones) its policy does not deny. */
  async listingFor(agent: string, also: Iterable<ServedTool> = []): Promise<McpTool[]> {
    const tools: McpTool[] = [];
    for (const tool of this.served.listing()) {
      const served = this.served.get(tool.name);
      if (tool.name === SERVED_SEARCH_TOOL || served === undefined || !(await this.denied(agent, served)))
        tools.push(tool);
    }
    for (const served of also) if (!(await this.denied(agent, served))) tools.push(listedTool(served));
    return tools;
  }

  /** Runs the search tool for `agent`: the best deferred matches its policy does not deny. */
  async search(agent: string, args: unknown): Promise<ServedSearchOutcome> {
    const query = (args as { query?: unknown } | null)?.query;
    if (typeof query !== 'string' || query.trim() === '' || query.length > 500)
      return {
        badQuery: `${SERVED_SEARCH_TOOL} takes { "query": "what the tool should do" }, a text of 1 to 500 characters.`,
      };
    const deferred = this.served.deferred();
    if (this.index?.of !== deferred)
      this.index = { of: deferred, index: new ToolIndex(deferred.map((tool) => tool.entry)) };
    const byRef = new Map(deferred.map((tool) => [tool.entry.ref, tool]));
    const found: ServedTool[] = [];
    for (const entry of this.index.index.rank(query)) {
      if (found.length >= SEARCH_LIMIT) break;
      const tool = byRef.get(entry.ref);
      if (tool !== undefined && !(await this.denied(agent, tool))) found.push(tool);
    }
    const note =
      found.length === 0
        ? 'No tool matches. Try other words, or use the tools you have.'
        : 'Call these tools by name, with arguments as their inputSchema says.';
    return { answer: { found: found.map(listedTool), note }, found };
  }

  /** Whether the caller's policy denies the tool whatever the call; a hook that fails leaves it to the call. */
  private async denied(agent: string, tool: ServedTool): Promise<boolean> {
    try {
      const decision = await this.policy.decide(
        {
          agent,
          run: '',
          tool: tool.entry.ref,
          annotations: tool.entry.tool.annotations,
          arguments: {},
          labels: NO_LABELS,
          resources: [],
        },
        this.rules,
      );
      return decision.action === 'deny';
    } catch {
      return false;
    }
  }
}
