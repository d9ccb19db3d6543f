import type { RunContext } from '@openai/agents';
import { ConfigurationError } from '../errors.js';
import type { Inbox } from '../inbox/inbox.js';
import type { PolicyRule } from '../policy/policy.js';
import type { ToolRunner } from '../runner/tool-runner.js';
import type { ToolInfo } from '../tools/tool-info.js';

/**
 * What `openAiAgentsTools` needs of a Wardrik: its runner, its inbox and its tools. A `Wardrik` is one;
 * the shape is written out so this entry point never loads the composition root.
 */
export interface WardrikForOpenAiAgents {
  readonly runner: Pick<ToolRunner, 'run'>;
  readonly inbox: Pick<Inbox, 'list' | 'approve' | 'deny'>;
  tools(patterns?: readonly string[]): ToolInfo[];
}

/** How Wardrik's tools are given to an `@openai/agents` Agent. */
export interface OpenAiAgentsToolsOptions<TContext = unknown> {
  /** Patterns of the tools to give, such as `['orders/*']`. */
  readonly tools: readonly string[];
  /** The agent the calls run as (its budget, its policy rules, `ctx.agent`, events): `openai-agents` unless given. */
  readonly agent?: string;
  /**
   * The Wardrik run the calls belong to: their labels follow it, and a call's id is unique in it. One run per
   * SDK run (its `RunContext`, which `run(agent, state)` keeps when resuming) unless given. Give a function
   * of the run's context when a `RunState` is restored from a string, such as in another process: a new
   * `RunContext` would otherwise start a new Wardrik run, and a call it parked would park again.
   */
  readonly run?: string | ((runContext: RunContext<TContext>) => string);
  /** Who answers when the app calls `state.approve()` or `state.reject()`, as the inbox records it. */
  readonly by?: string | ((runContext: RunContext<TContext>) => string | undefined);
  /** The agent's budget in US dollars: once its spend reaches it, no call starts. */
  readonly budgetUsd?: number;
  /** The agent's own rules, applied with the global ones (the most restrictive wins). */
  readonly policy?: readonly PolicyRule[];
}

/** Checks the options a developer wrote; every mistake throws a ConfigurationError naming the fix. */
export function checkOptions(options: OpenAiAgentsToolsOptions<never>): void {
  const where = 'openAiAgentsTools(wardrik, options)';
  if (options === null || typeof options !== 'object')
    throw new ConfigurationError(`${where} needs options, such as { tools: ['orders/*'] }.`);
  const { tools, agent, run, by, budgetUsd } = options;
  if (!Array.isArray(tools as unknown) || tools.length === 0 || !tools.every((t) => typeof t === 'string' && t !== ''))
    throw new ConfigurationError(
      `${where}: tools is a non-empty list of tool patterns, such as ['orders/*']; got ${JSON.stringify(tools)}.`,
    );
  if (agent !== undefined && (typeof agent !== 'string' || agent === ''))
    throw new ConfigurationError(`${where}: agent is the id the calls run as, a non-empty string.`);
  if (run !== undefined && typeof run !== 'function' && (typeof run !== 'string' || run === ''))
    throw new ConfigurationError(`${where}: run is a run id (a non-empty string) or a function of the RunContext.`);
  if (by !== undefined && typeof by !== 'function' && typeof by !== 'string')
    throw new ConfigurationError(`${where}: by names the person, a string or a function of the RunContext.`);
  if (budgetUsd !== undefined && !(typeof budgetUsd === 'number' && Number.isFinite(budgetUsd) && budgetUsd >= 0))
    throw new ConfigurationError(`${where}: budgetUsd is a number of US dollars, 0 or more; got ${String(budgetUsd)}.`);
}
