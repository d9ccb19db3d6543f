import type { LanguageModelV3 } from '@ai-sdk/provider';
import { ConfigurationError } from '../errors.js';
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
    throw new ConfigurationError('startAgent takes { id, model, tools, instructions?, policy?, budgetUsd?, maxSteps? }.');
  }
  const { id } = options;
  if (typeof id !== 'string' || !AGENT_ID.test(id)) {
    throw new ConfigurationError(`Agent id ${JSON.stringify(id)} must be 1 to 128 letters, digits, "_", ".", ":" or "-", such as "support".`);
  }
  const where = `Agent "${id}"`;
  if (!Array.isArray(options.tools)) {
    throw new ConfigurationError(`${where}: tools must be an array of patterns such as ["orders/*"]; pass [] for an agent without tools.`);
  }
  for (const pattern of options.tools) {
    if (typeof pattern !== 'string' || (pattern !== '*' && pattern !== '**' && !TOOL_PATTERN.test(pattern) && !/^\*\*\/?/.test(pattern))) {
      const text = String(pattern);
      const hint = text.includes('__') ? ` Agents name tools as "toolset/tool": write "${text.replace('__', '/')}".` : ' Write "toolset/tool", such as "orders/*" or "orders/find_order".';
      throw new ConfigurationError(`${where}: tool pattern ${JSON.stringify(pattern)} is not a pattern on "toolset/tool".${hint}`);
    }
  }
  if (options.instructions !== undefined && typeof options.instructions !== 'string') {
    throw new ConfigurationError(`${where}: instructions must be a string (the system prompt).`);
  }
  if (options.budgetUsd !== undefined && (typeof options.budgetUsd !== 'number' || !Number.isFinite(options.budgetUsd) || options.budgetUsd <= 0)) {
    throw new ConfigurationError(`${where}: budgetUsd must be a number of dollars above 0, such as 2; got ${String(options.budgetUsd)}. Leave it out for no budget.`);
  }
  integer(where, 'maxSteps', options.maxSteps, 1, 10_000);
  integer(where, 'historyTurns', options.historyTurns, 0, 10_000);
  integer(where, 'maxOutputTokens', options.maxOutputTokens, 1, 10_000_000);
  if (options.temperature !== undefined && (typeof options.temperature !== 'number' || !Number.isFinite(options.temperature) || options.temperature < 0)) {
    throw new ConfigurationError(`${where}: temperature must be a number of at least 0.`);
  }
  if (options.price !== undefined) checkPrice(`${where} price`, options.price);
  if (options.policy !== undefined) {
    if (!Array.isArray(options.policy)) throw new ConfigurationError(`${where}: policy must be an array of rules { match, action, when? }.`);
    policy.prepare(options.policy);
  }
}

function integer(where: string, name: string, value: number | undefined, min: number, max: number): void {
  if (value !== undefined && (!Number.isInteger(value) || value < min || value > max)) {
    throw new ConfigurationError(`${where}: ${name} must be a whole number from ${min} to ${max}; got ${String(value)}.`);
  }
}

/** A whole-number option of at least `min`; anything else is refused, naming the option. */
export function whole(name: string, value: number, min: number): number {
  if (!Number.isInteger(value) || value < min) throw new ConfigurationError(`${name} must be a whole number of at least ${min}; got ${String(value)}.`);
  return value;
}
