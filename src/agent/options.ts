import type { LanguageModelV3 } from '@ai-sdk/provider';
import { ConfigurationError } from '../errors.js';
import { countRule, numberOption, timerRule } from '../options.js';
import type { Policy, PolicyRule } from '../policy/policy.js';
import { checkPrice, type ModelPrice, type PriceTable } from './pricing.js';
import type { ModelsOptions } from './model-registry.js';

/** What `wardrik.startAgent` takes. */
export interface AgentOptions {
  /** Stable: turns, spend and the conversation are kept under it. 1 to 128 of letters, digits, `_ . : -`. */
  readonly id: string;
  /** `'provider:model'`, such as `'anthropic:claude-haiku-4-5'`, or any LanguageModelV3. */
  readonly model: string | LanguageModelV3;
  /** The system prompt. */
  readonly instructions?: string;
  /** Patterns of the tools the agent may use, such as `['orders/*', 'github/search_issues']`. */
  readonly tools: readonly string[];
  /** The agent's own policy rules, applied with Wardrik's (the most restrictive wins). */
  readonly policy?: readonly PolicyRule[];
  /** Dollars the agent may spend, on models and tools together; no model call or paid tool starts past it. */
  readonly budgetUsd?: number;
  /** Model calls per turn before the turn ends as failed: 20. */
  readonly maxSteps?: number;
  /** How many earlier finished turns the model sees: 20; 0 makes every turn stand alone. */
  readonly historyTurns?: number;
  /** The model's price, over the price table (needed for a model the table does not know). */
  readonly price?: ModelPrice;
  readonly maxOutputTokens?: number;
  readonly temperature?: number;
}

/** Settings for every agent of a Wardrik: `Wardrik.create({ agents: { … } })`. */
export interface AgentsOptions {
  /** API keys and base URLs of the built-in providers; each defaults to the provider's environment variables. */
  readonly providers?: ModelsOptions;
  /** Prices by `provider:model`, over `DEFAULT_PRICES`. */
  readonly prices?: PriceTable;
  /** Retries of a model call that failed transiently (HTTP 408, 409, 429, 5xx, a dropped connection). */
  readonly modelRetry?: { readonly attempts?: number; readonly baseDelayMs?: number; readonly maxDelayMs?: number };
  /** How often `agent.result(run)` looks in the store for a turn another node finishes: 1 000 ms. */
  readonly resultPollMs?: number;
}

export const AGENT_DEFAULTS = Object.freeze({
  maxSteps: 20,
  historyTurns: 20,
  modelAttempts: 3,
  modelBaseDelayMs: 1_000,
  modelMaxDelayMs: 20_000,
  resultPollMs: 1_000,
});

const AGENT_ID = /^[A-Za-z0-9_.:-]{1,128}$/;
const TOOL_PATTERN = /^[A-Za-z0-9_*?-]+\/[A-Za-z0-9_*?-]+$/;

/** Checks an agent's options at start-up; every problem throws a ConfigurationError naming the fix. */
export function checkAgentOptions(options: AgentOptions, policy: Policy): void {
  if (options === null || typeof options !== 'object') {
    throw new ConfigurationError(
      'startAgent takes { id, model, tools, instructions?, policy?, budgetUsd?, maxSteps? }.',
    );
  }
  const { id } = options;
  if (typeof id !== 'string' || !AGENT_ID.test(id)) {
    throw new ConfigurationError(
      `Agent id ${JSON.stringify(id)} must be 1 to 128 letters, digits, "_", ".", ":" or "-", such as "support".`,
    );
  }
  const where = `Agent "${id}"`;
  if (!Array.isArray(options.tools)) {
    throw new ConfigurationError(
      `${where}: tools must be an array of patterns such as ["orders/*"]; pass [] for an agent without tools.`,
    );
  }
  for (const pattern of options.tools) {
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
  numberOption(
    `${where}: budgetUsd`,
    options.budgetUsd,
    0,
    { above: 0, unit: 'dollars' },
    'Give one such as 2, or leave it out for no budget.',
  );
  numberOption(`${where}: maxSteps`, options.maxSteps, 0, countRule(1, 10_000));
  numberOption(`${where}: historyTurns`, options.historyTurns, 0, countRule(0, 10_000));
  numberOption(`${where}: maxOutputTokens`, options.maxOutputTokens, 0, countRule(1, 10_000_000));
  numberOption(`${where}: temperature`, options.temperature, 0, { min: 0 });
  if (options.price !== undefined) checkPrice(`${where} price`, options.price);
  if (options.policy !== undefined) {
    if (!Array.isArray(options.policy))
      throw new ConfigurationError(`${where}: policy must be an array of rules { match, action, when? }.`);
    policy.prepare(options.policy);
  }
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
  const retry = options.modelRetry;
  return {
    attempts: numberOption(
      'agents.modelRetry.attempts',
      retry?.attempts,
      AGENT_DEFAULTS.modelAttempts,
      countRule(1, 100),
    ),
    baseDelayMs: numberOption(
      'agents.modelRetry.baseDelayMs',
      retry?.baseDelayMs,
      AGENT_DEFAULTS.modelBaseDelayMs,
      timerRule(),
    ),
    maxDelayMs: numberOption(
      'agents.modelRetry.maxDelayMs',
      retry?.maxDelayMs,
      AGENT_DEFAULTS.modelMaxDelayMs,
      timerRule(),
    ),
    resultPollMs: numberOption(
      'agents.resultPollMs',
      options.resultPollMs,
      AGENT_DEFAULTS.resultPollMs,
      timerRule({ min: 1 }),
    ),
  };
}
