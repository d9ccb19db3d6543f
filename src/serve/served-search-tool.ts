import type { Tool as McpTool } from '@modelcontextprotocol/server';
import { SEARCH_TOOL, SEARCH_TOOL_SCHEMA } from '../agent/tool-search.js';

/** The served search tool's name: the agents' own (docs/agents.md), so one name means one thing. */
export const SERVED_SEARCH_TOOL = SEARCH_TOOL;

/** The served search tool as `tools/list` gives it, when a server has deferred tools. */
export const SERVED_SEARCH_DEFINITION: McpTool = Object.freeze({
  name: SERVED_SEARCH_TOOL,
  description:
    'Finds tools of this server by what they do. More tools exist than are listed: when none fits, describe the ' +
    'task in a few words (such as "open a GitHub issue"). The answer gives the tools found, with their arguments; ' +
    'call them by name.',
  inputSchema: SEARCH_TOOL_SCHEMA as unknown as McpTool['inputSchema'],
  annotations: { readOnlyHint: true, openWorldHint: false },
});
