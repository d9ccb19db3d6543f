import type { LanguageModelV3ProviderTool, SharedV3ProviderOptions } from '@ai-sdk/provider';
import { ConfigurationError } from '../errors.js';

/**
 * Tool search run by the model's provider (`startAgent({ toolSearch: 'provider' })`): the deferred tools are
 * sent marked for deferred loading and the provider's own search tool finds and loads them. The search runs
 * at the provider; its call and its result come back in the model's answer, are journaled with the step
 * (`ModelStepData.searches`) and are sent back in every later prompt, which is what keeps the tools loaded.
 * Wardrik reads the loaded names from the journaled results, so a call of a deferred tool no search loaded is
 * refused as with Wardrik's own search, and a turn resumed anywhere loads the same tools.
 */
export interface ProviderSearch {
  /** The provider, as `rt.provider` names it. */
  readonly provider: string;
  /** The provider's search tool, sent with the deferred tools. */
  readonly tool: LanguageModelV3ProviderTool;
  /** The provider options that mark a function tool as deferred. */
  readonly deferred: SharedV3ProviderOptions;
  /** The tool names a search result loaded; [] for a result not in the provider's shape. */
  loadedBy(result: unknown): string[];
}

/** A provider search's call and result from a model step, as the journal keeps them. */
export interface JournaledSearch {
  /** The provider's call id. */
  readonly id: string;
  /** The search tool's name, as the provider called it. */
  readonly name: string;
  /** The search's input: JSON text. */
  readonly input: string;
  /** The search's result as the provider gave it (JSON), or undefined when the answer held no result. */
  readonly result?: unknown;
  readonly error?: boolean;
  /** What the provider attached to the call and the result (item ids), sent back with them. */
  readonly callMetadata?: SharedV3ProviderOptions;
  readonly resultMetadata?: SharedV3ProviderOptions;
}

/** The most tool names one search result may load: a result is the provider's, still bounded. */
const MAX_LOADED = 50;

const ANTHROPIC: ProviderSearch = {
  provider: 'anthropic',
  tool: { type: 'provider', id: 'anthropic.tool_search_bm25_20251119', name: 'tool_search_tool_bm25', args: {} },
  deferred: { anthropic: { deferLoading: true } },
  // [{ type: 'tool_reference', toolName }]
  loadedBy: (result) => namesOf(Array.isArray(result) ? result : [], 'toolName'),
};

const OPENAI: ProviderSearch = {
  provider: 'openai',
  tool: { type: 'provider', id: 'openai.tool_search', name: 'tool_search', args: { execution: 'server' } },
  deferred: { openai: { deferLoading: true } },
  // { tools: [{ type: 'function', name, … }] }
  loadedBy: (result) => {
    const tools = (result as { tools?: unknown } | null)?.tools;
    return namesOf(Array.isArray(tools) ? tools : [], 'name');
  },
};

/**
 * The provider search for a model's provider (`anthropic`, `anthropic.messages`, `openai.responses`, …), or a
 * ConfigurationError saying which providers have one and what to do instead.
 */
export function providerSearchFor(where: string, provider: string): ProviderSearch {
  const family = provider.split(/[.:]/)[0];
  if (family === 'anthropic') return ANTHROPIC;
  if (family === 'openai' && provider !== 'openai.chat') return OPENAI;
  throw new ConfigurationError(
    `${where}: toolSearch "provider" needs a model whose provider searches tools itself (Anthropic's Messages API, ` +
      `OpenAI's Responses API); this agent's model is of "${provider}". Leave toolSearch out to use Wardrik's own search tool.`,
  );
}

/** Whether a provider-executed part of a model's answer is this search's: by the tool's name. */
export function isSearchPart(search: ProviderSearch | undefined, toolName: string): boolean {
  return search !== undefined && toolName === search.tool.name;
}

function namesOf(items: readonly unknown[], key: string): string[] {
  const names: string[] = [];
  for (const item of items.slice(0, MAX_LOADED)) {
    const name = (item as Record<string, unknown> | null)?.[key];
    if (typeof name === 'string' && name.length <= 128) names.push(name);
  }
  return names;
}
