import type { JSONSchema7, LanguageModelV3FunctionTool, LanguageModelV3Message } from '@ai-sdk/provider';
import type { Policy } from '../policy/policy.js';
import { OUTSIDE } from '../tools/labels.js';
import type { ToolCatalog, CatalogEntry } from '../tools/catalog.js';
import { definitionReviewed, isServerTool, type ToolRef } from '../tools/tool-origin.js';
import { errorAnswer, okAnswer, NO_LABELS, type ToolAnswer } from '../tools/result.js';
import type { ModelStepData, StepData } from './messages.js';
import type { ProviderSearch } from './provider-search.js';
import {
  loadedBy,
  SEARCH_LIMIT,
  SEARCH_TOOL,
  SEARCH_TOOL_DESCRIPTION,
  SEARCH_TOOL_SCHEMA,
  ToolIndex,
  type SearchAnswer,
} from './tool-search.js';
import type { LiveTurn, ModelTool, Runtime } from './turn-state.js';
import { READ_TOOL, READ_TOOL_DEFINITION } from './turn-values.js';

/** The tools of one turn: those sent to the model, and those it may load with the search tool. */
export interface TurnTools {
  readonly tools: ModelTool[];
  readonly readOnly: Set<string>;
  readonly refs: Map<string, ToolRef>;
  /** Deferred tools by model name; empty for an agent without `deferred`. */
  readonly deferred: ReadonlyMap<string, CatalogEntry>;
  /** What the runner lets the turn call: the agent's patterns and each loaded tool. */
  readonly callable: string[];
  /** Whether the model reads tools an untrusted MCP server wrote (names, descriptions, schemas; sent or deferred). */
  readonly writtenOutside: boolean;
  /** The untrusted MCP servers whose tools the model reads (sent or deferred), by name. */
  readonly outsideServers: readonly string[];
}

/**
 * An agent's deferred tools: the search tool instead of them, loading what it finds into the turn, and
 * what earlier searches in the prompt loaded (see tool-search.ts).
 */
export class DeferredTools {
  /** One index per agent, rebuilt when its deferred tools change (an MCP server listed new ones). */
  private readonly indexes = new Map<string, { readonly key: string; readonly index: ToolIndex }>();

  constructor(
    private readonly catalog: ToolCatalog,
    private readonly policy: Policy,
  ) {}

  /**
   * The untrusted MCP servers whose tools (sent or deferred) the agent's model would read now: their names,
   * descriptions and schemas are outside text the model reads from its first step.
   */
  outsideServers(rt: Runtime): readonly string[] {
    const entries = this.catalog.select(rt.options.tools);
    if (rt.options.deferred !== undefined) entries.push(...this.catalog.select(rt.options.deferred));
    return serversOf(entries.filter(outsideDefinition));
  }

  /** The turn's tools: the agent's, the search tool if it has deferred ones, and what searches in the prompt loaded. */
  forTurn(rt: Runtime, history: readonly LanguageModelV3Message[], steps: readonly StepData[]): TurnTools {
    const sent = this.catalog.select(rt.options.tools);
    const names = new Set(sent.map((entry) => entry.name));
    const deferred = new Map<string, CatalogEntry>();
    if (rt.options.deferred !== undefined)
      for (const entry of this.catalog.select(rt.options.deferred))
        if (!names.has(entry.name)) deferred.set(entry.name, entry);
    const outsideServers = serversOf([...sent, ...deferred.values()].filter(outsideDefinition));
    const turn: TurnTools = {
      tools: sent.map(definition),
      readOnly: new Set(sent.filter((entry) => entry.tool.annotations.readOnly === true).map((entry) => entry.name)),
      refs: new Map(sent.map((entry) => [entry.name, toolRef(entry)])),
      deferred,
      callable: [...rt.options.tools],
      writtenOutside: outsideServers.length > 0,
      outsideServers,
    };
    // With labels on values, the model reads outside text only through the reader (it changes nothing).
    if (this.policy.followsValues) {
      turn.tools.push(READ_TOOL_DEFINITION);
      turn.readOnly.add(READ_TOOL);
    }
    if (deferred.size === 0) return turn;
    if (rt.search !== undefined) return this.forProviderSearch(rt, rt.search, turn, history, steps);
    turn.tools.push({
      type: 'function',
      name: SEARCH_TOOL,
      description: SEARCH_TOOL_DESCRIPTION,
      inputSchema: SEARCH_TOOL_SCHEMA as unknown as JSONSchema7,
    });
    turn.readOnly.add(SEARCH_TOOL);
    // Loaded by searches whose answers are in the prompt: earlier turns in the window, and this turn's
    // steps; but not a tool the policy denies now (a node restarted with a stricter policy, say).
    for (const name of searchedBefore(history, steps)) {
      const entry = deferred.get(name);
      if (entry !== undefined && !this.deniedNow(rt, entry)) load(turn, entry);
    }
    return turn;
  }

  /**
   * The turn's tools with the provider's own search: every deferred tool the policy does not deny now is sent
   * marked as deferred, beside the provider's search tool; what the provider's searches in the prompt loaded
   * may be called (see provider-search.ts).
   */
  private forProviderSearch(
    rt: Runtime,
    search: ProviderSearch,
    turn: TurnTools,
    history: readonly LanguageModelV3Message[],
    steps: readonly StepData[],
  ): TurnTools {
    for (const entry of turn.deferred.values())
      if (!this.deniedNow(rt, entry)) turn.tools.push({ ...definition(entry), providerOptions: search.deferred });
    turn.tools.push(search.tool);
    for (const name of providerSearched(search, history)) this.allow(rt, turn, name);
    for (const step of steps) if (step.kind === 'model') this.loadFound(rt, turn, step);
    return turn;
  }

  /**
   * Lets the turn call what the provider's searches in a model step loaded: called when the step comes, before
   * its calls run, and for each journaled step when a turn is taken up.
   */
  loadFound(
    rt: Runtime,
    turn: Pick<TurnTools, 'tools' | 'readOnly' | 'refs' | 'callable' | 'deferred'>,
    step: ModelStepData,
  ): void {
    if (rt.search === undefined) return;
    for (const found of step.searches ?? [])
      if (found.error !== true) for (const name of rt.search.loadedBy(found.result)) this.allow(rt, turn, name);
  }

  /** A deferred tool a provider's search loaded, callable from now on; never one the policy denies now. */
  private allow(
    rt: Runtime,
    turn: Pick<TurnTools, 'tools' | 'readOnly' | 'refs' | 'callable' | 'deferred'>,
    name: string,
  ): void {
    const entry = turn.deferred.get(name);
    if (entry !== undefined && !this.deniedNow(rt, entry)) load(turn, entry, false);
  }

  /**
   * Runs the search tool: the best matches the agent's policy would not deny, loaded into the turn.
   * Recovery and resumption load the same from the journaled answer; a tool the policy denies by then
   * is refused when called, like any call.
   */
  async search(d: LiveTurn, args: unknown): Promise<ToolAnswer> {
    const query = (args as { query?: unknown } | null)?.query;
    if (typeof query !== 'string' || query.trim() === '' || query.length > 500)
      return errorAnswer(
        'invalid_arguments',
        `${SEARCH_TOOL} takes { "query": "what the tool should do" }, a text of 1 to 500 characters.`,
      );
    const loaded: SearchAnswer['loaded'][number][] = [];
    for (const entry of this.indexOf(d).rank(query)) {
      if (loaded.length >= SEARCH_LIMIT) break;
      const decision = await this.policy.decide(
        {
          agent: d.rt.id,
          run: d.run,
          tool: entry.ref,
          annotations: entry.tool.annotations,
          arguments: {},
          labels: NO_LABELS,
          resources: [],
        },
        d.rt.options.policy,
      );
      if (decision.action === 'deny') continue;
      load(d, entry);
      loaded.push({ name: entry.name, description: entry.tool.description });
    }
    const answer: SearchAnswer =
      loaded.length === 0
        ? { loaded, note: 'No tool matches. Try other words, or answer with the tools you have.' }
        : { loaded, note: 'These tools are loaded: call them now.' };
    return okAnswer(answer, NO_LABELS);
  }

  /** Whether the policy denies the tool whatever the call: its rules, read at once (a `decide` hook is asked at the call). */
  private deniedNow(rt: Runtime, entry: CatalogEntry): boolean {
    const decision = this.policy.decide(
      {
        agent: rt.id,
        run: '',
        tool: entry.ref,
        annotations: entry.tool.annotations,
        arguments: {},
        labels: NO_LABELS,
        resources: [],
      },
      rt.options.policy,
    );
    return !(decision instanceof Promise) && decision.action === 'deny';
  }

  private indexOf(d: LiveTurn): ToolIndex {
    const key = [...d.deferred.keys()].join('\n');
    const cached = this.indexes.get(d.rt.id);
    if (cached?.key === key) return cached.index;
    const index = new ToolIndex([...d.deferred.values()]);
    this.indexes.set(d.rt.id, { key, index });
    return index;
  }
}

/** The answer to a call of a deferred tool the model did not load: what to do instead. */
export function notLoadedAnswer(name: string): ToolAnswer {
  return errorAnswer(
    'tool_not_found',
    `Tool "${name}" is not loaded yet; it did not run. Call ${SEARCH_TOOL} with what you need done to load it, then call it.`,
  );
}

function definition(entry: CatalogEntry): LanguageModelV3FunctionTool {
  return {
    type: 'function',
    name: entry.name,
    description: entry.tool.description,
    inputSchema: entry.tool.inputSchema as JSONSchema7,
  };
}

/** The toolsets (servers) of `entries`, each once, sorted. */
function serversOf(entries: readonly CatalogEntry[]): readonly string[] {
  return [...new Set(entries.map((entry) => entry.toolset))].sort();
}

/**
 * A tool whose definition is outside text: an untrusted MCP server wrote its name, description and schema,
 * and no person read them as offered now (its server is not `reviewed`, or the definition changed since).
 */
function outsideDefinition(entry: CatalogEntry): boolean {
  return (
    isServerTool(entry.tool) &&
    (entry.tool.annotations.labels?.includes(OUTSIDE) ?? false) &&
    !definitionReviewed(entry.tool)
  );
}

function toolRef(entry: CatalogEntry): ToolRef {
  const { outsideFields } = entry.tool.annotations;
  return {
    ref: entry.ref,
    description: entry.tool.description,
    extension: isServerTool(entry.tool),
    ...(outsideFields === undefined ? {} : { outsideFields }),
  };
}

/**
 * Adds a deferred tool to the turn's tools, once: callable, and sent to the model unless the provider's search
 * has it already.
 */
function load(
  turn: Pick<TurnTools, 'tools' | 'readOnly' | 'refs' | 'callable'>,
  entry: CatalogEntry | undefined,
  send = true,
): void {
  if (entry === undefined || turn.refs.has(entry.name)) return;
  if (send) turn.tools.push(definition(entry));
  turn.refs.set(entry.name, toolRef(entry));
  if (entry.tool.annotations.readOnly === true) turn.readOnly.add(entry.name);
  turn.callable.push(entry.ref);
}

/** The tool names successful searches loaded, in the earlier turns' messages and this turn's steps. */
function searchedBefore(history: readonly LanguageModelV3Message[], steps: readonly StepData[]): string[] {
  const names: string[] = [];
  for (const message of history) {
    if (message.role !== 'tool') continue;
    for (const part of message.content)
      if (part.type === 'tool-result' && part.toolName === SEARCH_TOOL && part.output.type === 'text')
        names.push(...loadedBy(part.output.value));
  }
  for (const step of steps) {
    if (step.kind !== 'tools') continue;
    for (const result of step.results)
      if (result.name === SEARCH_TOOL && !result.error) names.push(...loadedBy(result.text));
  }
  return names;
}

/** The tool names the provider's searches loaded, in the earlier turns' messages (their assistant parts). */
function providerSearched(search: ProviderSearch, history: readonly LanguageModelV3Message[]): string[] {
  const names: string[] = [];
  for (const message of history) {
    if (message.role !== 'assistant') continue;
    for (const part of message.content)
      if (part.type === 'tool-result' && part.toolName === search.tool.name && part.output.type === 'json')
        names.push(...search.loadedBy(part.output.value));
  }
  return names;
}
