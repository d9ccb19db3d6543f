import { ConfigurationError } from '../errors.js';
import { countRule, defaultsOf, numberOptions, readNumbers, timerRule, type NumberSettings } from '../options.js';
import type { Policy, PolicyRule } from '../policy/policy.js';
import { checkBudget, type AgentBudget, type BudgetPlan } from '../runner/budget-periods.js';
import { checkCallLimits } from '../runner/call-limits.js';
import { checkPrice, type ModelPrice, type PriceTable } from './pricing.js';
import type { LanguageModel } from './language-model.js';
import type { ModelsOptions } from './model-registry.js';

/** What `wardrik.startAgent` takes. */
export interface AgentOptions {
  /** Stable: turns, spend and the conversation are kept under it. 1 to 128 of letters, digits, `_ . : -`. */
  readonly id: string;
  /**
   * `'provider:model'`, such as `'anthropic:claude-haiku-4-5'`, or a model of any AI SDK 7 provider
   * (LanguageModelV4) or AI SDK 6 provider (LanguageModelV3).
   */
  readonly model: string | LanguageModel;
  /** The system prompt. */
  readonly instructions?: string;
  /** Patterns of the tools the agent may use, such as `['orders/*', 'github/search_issues']`. */
  readonly tools: readonly string[];
  /**
   * Patterns of tools the model is not sent but may load: it gets the `wardrik__search_tools` tool,
   * which finds them by what they do and loads the best matches its policy does not deny
   * (docs/agents.md, "Thousands of tools"). Such as `['github/*', 'crm/*']`.
   */
  readonly deferred?: readonly string[];
  /**
   * Who searches the deferred tools: `'wardrik'` (the default), Wardrik's own `wardrik__search_tools`; or
   * `'provider'`, the model provider's own tool search (Anthropic's Messages API, OpenAI's Responses API),
   * to which the deferred tools the policy does not deny are sent marked for deferred loading. Either way a
   * loaded tool is called through the runner, and a deferred tool no search loaded is refused unrun.
   */
  readonly toolSearch?: 'wardrik' | 'provider';
  /** The agent's own policy rules, applied with Wardrik's (the most restrictive wins). */
  readonly policy?: readonly PolicyRule[];
  /** Dollars the agent may spend, on models and tools together; no model call or paid tool starts past it. */
  readonly budgetUsd?: number;
  /**
   * The agent's budget by period, such as `{ usd: 50, per: 'day', timeZone: 'Europe/Berlin', warnAt: 0.8 }`:
   * spend in the current day or month counts, and a new one starts afresh (docs/agents.md, "Budgets").
   * Instead of `budgetUsd`, not with it.
   */
  readonly budget?: AgentBudget;
  /** Model calls per turn before the turn ends as failed: 20. */
  readonly maxSteps?: number;
  /** How many earlier finished turns the model sees: 20; 0 makes every turn stand alone. */
  readonly historyTurns?: number;
  /** The model's price, over the price table (needed for a model the table does not know). */
  readonly price?: ModelPrice;
  readonly maxOutputTokens?: number;
  readonly temperature?: number;
  /**
   * The person the agent acts for, such as their login id: every approval its calls ask for records
   * them as the requester, and a rule's `separateFrom: 'requester'` keeps them from answering it.
   */
  readonly onBehalfOf?: string;
  /**
   * The most calls of each tool matching a pattern in one turn, such as `{ 'orders/refund_order': 3 }`:
   * counted across nodes; a call past it is denied, unrun, and the model told why.
   */
  readonly maxCalls?: Readonly<Record<string, number>>;
}

/** Settings for every agent of a Wardrik: `Wardrik.create({ agents: { … } })`. */
export interface AgentsOptions {
  /** API keys and base URLs of the built-in providers; each defaults to the provider's environment variables. */
  readonly providers?: ModelsOptions;
  /** Prices by `provider:model`, over `DEFAULT_PRICES`. */
  readonly prices?: PriceTable;
  /**
   * Retries of a model call that failed transiently (HTTP 408, 409, 429, 5xx, a dropped connection): 3
   * attempts, waits from 1 000 ms doubling to 20 000 ms; `baseDelayMs` no longer than `maxDelayMs`.
   */
  readonly modelRetry?: { readonly attempts?: number; readonly baseDelayMs?: number; readonly maxDelayMs?: number };
  /** How often `agent.result(run)` looks in the store for a turn another node finishes: 1 000 ms. */
  readonly resultPollMs?: number;
}

/** The number options of `startAgent`, each declared once: where in `AgentOptions`, default and range. */
export const AGENT_NUMBERS = numberOptions<AgentOptions, `price.${string}`>()({
  budgetUsd: {
    path: 'budgetUsd',
    rule: { above: 0, unit: 'dollars' },
    hint: 'Give one such as 2, or leave it out for no budget.',
  },
  budgetPerPeriodUsd: {
    path: 'budget.usd',
    rule: { above: 0, unit: 'dollars' },
    hint: 'Give the dollars of each period, such as 50.',
  },
  budgetWarnAt: {
    path: 'budget.warnAt',
    rule: { above: 0, max: 1 },
    hint: 'Give the share of budget.usd that warns, such as 0.8, or leave it out.',
  },
  maxSteps: { path: 'maxSteps', default: 20, rule: countRule(1, 10_000) },
  historyTurns: { path: 'historyTurns', default: 20, rule: countRule(0, 10_000) },
  maxOutputTokens: { path: 'maxOutputTokens', rule: countRule(1, 10_000_000) },
  temperature: { path: 'temperature', rule: { min: 0 } },
});

/** The number options of `Wardrik.create({ agents })`, each declared once. */
export const AGENTS_NUMBERS = numberOptions<AgentsOptions>()({
  modelAttempts: { path: 'modelRetry.attempts', default: 3, rule: countRule(1, 100) },
  modelBaseDelayMs: { path: 'modelRetry.baseDelayMs', default: 1_000, rule: timerRule() },
  modelMaxDelayMs: { path: 'modelRetry.maxDelayMs', default: 20_000, rule: timerRule() },
  resultPollMs: { path: 'resultPollMs', default: 1_000, rule: timerRule({ min: 1 }) },
});

export const AGENT_DEFAULTS = Object.freeze({ ...defaultsOf(AGENT_NUMBERS), ...defaultsOf(AGENTS_NUMBERS) });

/** An agent's numbers, checked, with their defaults. */
export type AgentSettings = NumberSettings<typeof AGENT_NUMBERS> & { readonly budget?: BudgetPlan };

const AGENT_ID = /^[A-Za-z0-9_.:-]{1,128}$/;
const TOOL_PATTERN = /^[A-Za-z0-9_*?-]+\/[A-Za-z0-9_*?-]+$/;

/**
 * Checks an agent's options at start-up and returns its numbers; every problem throws a
 * ConfigurationError naming the fix.
 */
export function checkAgentOptions(options: AgentOptions, policy: Policy): AgentSettings {
  if (options === null || typeof options !== 'object') {
    throw new ConfigurationError(
      'startAgent takes { id, model, tools, deferred?, instructions?, policy?, budget?, maxSteps? }.',
    );
  }
  const { id } = options;
  if (typeof id !== 'string' || !AGENT_ID.test(id)) {
    throw new ConfigurationError(
      `Agent id ${JSON.stringify(id)} must be 1 to 128 letters, digits, "_", ".", ":" or "-", such as "support".`,
    );
  }
  const where = `Agent "${id}"`;
  const person = options.onBehalfOf;
  if (person !== undefined && (typeof person !== 'string' || person.trim() === '' || person.length > 200))
    throw new ConfigurationError(
      `${where}: onBehalfOf is the id of the person the agent acts for, 1 to 200 characters, as your inbox's sign-in names them; got ${JSON.stringify(person)?.slice(0, 80)}.`,
    );
  checkCallLimits(options.maxCalls, where);
  if (!Array.isArray(options.tools)) {
    throw new ConfigurationError(
      `${where}: tools must be an array of patterns such as ["orders/*"]; pass [] for an agent without tools.`,
    );
  }
  if (options.deferred !== undefined && !Array.isArray(options.deferred)) {
    throw new ConfigurationError(
      `${where}: deferred must be an array of patterns such as ["github/*"]: tools the model loads with the search tool.`,
    );
  }
  if (options.toolSearch !== undefined && options.toolSearch !== 'wardrik' && options.toolSearch !== 'provider')
    throw new ConfigurationError(
      `${where}: toolSearch is "wardrik" (Wardrik's own search tool, the default) or "provider" (the model provider's); got ${JSON.stringify(options.toolSearch)?.slice(0, 80)}.`,
    );
  if (options.toolSearch === 'provider' && (options.deferred === undefined || options.deferred.length === 0))
    throw new ConfigurationError(
      `${where}: toolSearch "provider" searches the agent's deferred tools, and it has none: add deferred: ["github/*"] (the tools to load on demand), or leave toolSearch out.`,
    );
  for (const pattern of [...(options.tools as unknown[]), ...((options.deferred ?? []) as unknown[])]) {
    if (
      typeof pattern !== 'string' ||
      (pattern !== '*' && pattern !== '**' && !TOOL_PATTERN.test(pattern) && !/^\*\*\/?/.test(pattern))
    ) {
      const text = String(pattern);
      const hint = text.includes('__')
        ? ` Agents name tools as "toolset/tool": write "${text.replace('__', '/')}".`
        : ' Write "toolset/tool", such as "orders/*" or "orders/find_order".';
      throw new ConfigurationError(
        `${where}: tool pattern ${JSON.stringify(pattern)} is not a pattern on "toolset/tool".${hint}`,
      );
    }
  }
  if (options.instructions !== undefined && typeof options.instructions !== 'string') {
    throw new ConfigurationError(`${where}: instructions must be a string (the system prompt).`);
  }
  const budget = checkBudget(where, options.budget, options.budgetUsd);
  const numbers = readNumbers(`${where}: `, options, AGENT_NUMBERS);
  if (options.price !== undefined) checkPrice(`${where} price`, options.price);
  if (options.policy !== undefined) {
    if (!Array.isArray(options.policy))
      throw new ConfigurationError(`${where}: policy must be an array of rules { match, action, when? }.`);
    policy.prepare(options.policy);
  }
  return budget === undefined ? numbers : { ...numbers, budget };
}

/** The numbers of `Wardrik.create({ agents })`, checked at start-up. */
export interface AgentsSettings {
  readonly attempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  readonly resultPollMs: number;
}

/** Reads `Wardrik.create({ agents })`; a bad value throws a ConfigurationError naming it. */
export function agentsSettings(options: AgentsOptions): AgentsSettings {
  const numbers = readNumbers('agents.', options, AGENTS_NUMBERS, [
    { lower: 'modelBaseDelayMs', upper: 'modelMaxDelayMs', why: 'no model retry waits longer than maxDelayMs' },
  ]);
  return {
    attempts: numbers.modelAttempts,
    baseDelayMs: numbers.modelBaseDelayMs,
    maxDelayMs: numbers.modelMaxDelayMs,
    resultPollMs: numbers.resultPollMs,
  };
}
