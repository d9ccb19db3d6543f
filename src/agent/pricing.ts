import { ConfigurationError } from '../errors.js';

/** What a model costs, in US dollars per million tokens. Cache prices default to the input price. */
export interface ModelPrice {
  readonly inputPerMTok: number;
  readonly outputPerMTok: number;
  /** Input tokens read from the provider's prompt cache. */
  readonly cacheReadPerMTok?: number;
  /** Input tokens written to the provider's prompt cache. */
  readonly cacheWritePerMTok?: number;
}

/**
 * Prices by `provider:model`, such as `anthropic:claude-haiku-4-5`. A key matches that model and its
 * dated snapshots (`anthropic:claude-haiku-4-5-20251001`); a key ending in `*` matches every model it
 * is a prefix of (`scripted:*`).
 */
export type PriceTable = Readonly<Record<string, ModelPrice>>;

/** Tokens one model step used, as the provider reported them. */
export interface ModelUsage {
  /** All input tokens, cached or not. */
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWriteTokens: number;
}

const price = (
  inputPerMTok: number,
  outputPerMTok: number,
  cacheReadPerMTok?: number,
  cacheWritePerMTok?: number,
): ModelPrice =>
  Object.freeze({
    inputPerMTok,
    outputPerMTok,
    ...(cacheReadPerMTok === undefined ? {} : { cacheReadPerMTok }),
    ...(cacheWritePerMTok === undefined ? {} : { cacheWritePerMTok }),
  });

/**
 * The providers' list prices, per million tokens, as published when this table was written. Models
 * not listed cost nothing in the budget until you give their price (`agents: { prices }`); an agent
 * with a budget refuses to start on an unpriced model, so a budget never silently ignores the model.
 */
export const DEFAULT_PRICES: PriceTable = Object.freeze({
  'anthropic:claude-haiku-4-5': price(1, 5, 0.1, 1.25),
  'anthropic:claude-sonnet-4-5': price(3, 15, 0.3, 3.75),
  'anthropic:claude-sonnet-4-0': price(3, 15, 0.3, 3.75),
  'anthropic:claude-sonnet-4': price(3, 15, 0.3, 3.75),
  'anthropic:claude-opus-4-5': price(5, 25, 0.5, 6.25),
  'anthropic:claude-opus-4-1': price(15, 75, 1.5, 18.75),
  'anthropic:claude-opus-4-0': price(15, 75, 1.5, 18.75),
  'anthropic:claude-opus-4': price(15, 75, 1.5, 18.75),
  'anthropic:claude-3-haiku': price(0.25, 1.25, 0.03, 0.3),
  'openai:gpt-5': price(1.25, 10, 0.125),
  'openai:gpt-5-mini': price(0.25, 2, 0.025),
  'openai:gpt-5-nano': price(0.05, 0.4, 0.005),
  'openai:gpt-5.1': price(1.25, 10, 0.125),
  'openai:gpt-4.1': price(2, 8, 0.5),
  'openai:gpt-4.1-mini': price(0.4, 1.6, 0.1),
  'openai:gpt-4.1-nano': price(0.1, 0.4, 0.025),
  'openai:gpt-4o': price(2.5, 10, 1.25),
  'openai:gpt-4o-mini': price(0.15, 0.6, 0.075),
  'openai:o3': price(2, 8, 0.5),
  'openai:o4-mini': price(1.1, 4.4, 0.275),
  // Gemini's prices for prompts up to 200k tokens.
  'google:gemini-2.5-pro': price(1.25, 10, 0.125),
  'google:gemini-2.5-flash': price(0.3, 2.5, 0.03),
  'google:gemini-2.5-flash-lite': price(0.1, 0.4, 0.01),
  // The scripted model of `wardrik/testing` costs nothing; give it a price to test budgets.
  'scripted:*': price(0, 0),
});

const DATED = /^-\d{4}-?\d{2}-?\d{2}$/;

/** Turns usage into dollars through a price table: the defaults with the app's prices over them. */
export class Pricing {
  private readonly table: PriceTable;
  private readonly prefixes: readonly (readonly [string, ModelPrice])[];

  constructor(overrides: PriceTable = {}) {
    if (overrides === null || typeof overrides !== 'object') {
      throw new ConfigurationError(
        'agents.prices must be an object of "provider:model" → { inputPerMTok, outputPerMTok }.',
      );
    }
    for (const [key, value] of Object.entries(overrides)) checkPrice(key, value);
    this.table = Object.freeze({ ...DEFAULT_PRICES, ...overrides });
    // Longest prefix first, so `openai:gpt-5-*` wins over `openai:*`.
    this.prefixes = Object.entries(this.table)
      .filter(([key]) => key.endsWith('*'))
      .map(([key, value]) => [key.slice(0, -1), value] as const)
      .sort((a, b) => b[0].length - a[0].length);
  }

  /** The price of `provider:model`, or undefined when the table has none. */
  priceOf(model: string): ModelPrice | undefined {
    const exact = this.table[model];
    if (exact !== undefined) return exact;
    // A dated snapshot, such as claude-haiku-4-5-20251001, costs what its alias costs.
    const dash = model.search(/-\d{4}-?\d{2}-?\d{2}$/);
    if (dash > 0 && DATED.test(model.slice(dash))) {
      const alias = this.table[model.slice(0, dash)];
      if (alias !== undefined) return alias;
    }
    for (const [prefix, value] of this.prefixes) if (model.startsWith(prefix)) return value;
    return undefined;
  }

  /** Dollars for one step's usage at `price`. */
  static usd(price: ModelPrice, usage: ModelUsage): number {
    const uncached = Math.max(0, usage.inputTokens - usage.cacheReadTokens - usage.cacheWriteTokens);
    return (
      (uncached * price.inputPerMTok +
        usage.cacheReadTokens * (price.cacheReadPerMTok ?? price.inputPerMTok) +
        usage.cacheWriteTokens * (price.cacheWritePerMTok ?? price.inputPerMTok) +
        usage.outputTokens * price.outputPerMTok) /
      1_000_000
    );
  }
}

/** Throws a ConfigurationError unless `value` is a usable price. */
export function checkPrice(where: string, value: unknown): asserts value is ModelPrice {
  const p = value as ModelPrice | null;
  const bad = (field: string): ConfigurationError =>
    new ConfigurationError(
      `Price "${where}": ${field} must be a number of dollars per million tokens, at least 0, such as { inputPerMTok: 1, outputPerMTok: 5 }.`,
    );
  if (p === null || typeof p !== 'object') throw bad('the price');
  for (const field of ['inputPerMTok', 'outputPerMTok'] as const) {
    if (typeof p[field] !== 'number' || !Number.isFinite(p[field]) || p[field] < 0) throw bad(field);
  }
  for (const field of ['cacheReadPerMTok', 'cacheWritePerMTok'] as const) {
    const v = p[field];
    if (v !== undefined && (typeof v !== 'number' || !Number.isFinite(v) || v < 0)) throw bad(field);
  }
}
