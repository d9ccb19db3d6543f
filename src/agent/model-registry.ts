import { ConfigurationError } from '../errors.js';
import { isLanguageModel, type LanguageModel } from './language-model.js';

/** Makes the model for `modelId` (the part after `provider:`); may load the provider's package lazily. */
export type ModelFactory = (modelId: string) => LanguageModel | Promise<LanguageModel>;

/**
 * A provider registered by prefix. `check` runs when an agent starts, synchronously, and returns what
 * is wrong (a missing key …) in words that name the fix, or undefined when the model can be made.
 */
export interface ModelProvider {
  readonly create: ModelFactory;
  readonly check?: (modelId: string) => string | undefined;
  /** Where the provider's key comes from, named in errors about it: `ANTHROPIC_API_KEY`. */
  readonly keyHint?: string;
}

/** Settings for a built-in provider; each falls back to the provider's own environment variables. */
export interface ProviderSettings {
  /** Instead of ANTHROPIC_API_KEY / OPENAI_API_KEY / GOOGLE_GENERATIVE_AI_API_KEY. */
  readonly apiKey?: string;
  /** Instead of ANTHROPIC_BASE_URL / OPENAI_BASE_URL (Google's has no variable), such as a proxy or a local fake. */
  readonly baseURL?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/** Settings for the built-in providers. */
export interface ModelsOptions {
  readonly anthropic?: ProviderSettings;
  readonly openai?: ProviderSettings;
  readonly google?: ProviderSettings;
}

/**
 * Turns `'provider:model'` into a model (LanguageModelV4 or V3). `anthropic`, `openai` and `google` are built
 * in, through the AI SDK 7 providers `@ai-sdk/anthropic`, `@ai-sdk/openai` and `@ai-sdk/google`, each loaded
 * (dynamic import) only when a model of theirs is first used. `register(prefix, provider)` adds more; a later registration replaces an earlier one.
 * Replace the whole registry under `Tokens.Models`.
 */
export class ModelRegistry {
  private readonly providers = new Map<string, ModelProvider>();
  private readonly models = new Map<string, Promise<LanguageModel>>();

  /** The built-in providers, with `options`' keys and base URLs; an app may build its own for `Tokens.Models`. */
  constructor(options: ModelsOptions = {}) {
    this.register(
      'anthropic',
      builtIn('anthropic', 'ANTHROPIC_API_KEY', options.anthropic, async (settings) => {
        const { createAnthropic } = await import('@ai-sdk/anthropic');
        return createAnthropic({ ...settings, headers: { ...settings.headers } });
      }),
    );
    this.register(
      'openai',
      builtIn('openai', 'OPENAI_API_KEY', options.openai, async (settings) => {
        const { createOpenAI } = await import('@ai-sdk/openai');
        return createOpenAI({ ...settings, headers: { ...settings.headers } });
      }),
    );
    this.register(
      'google',
      builtIn('google', 'GOOGLE_GENERATIVE_AI_API_KEY', options.google, async (settings) => {
        const { createGoogleGenerativeAI } = await import('@ai-sdk/google');
        return createGoogleGenerativeAI({ ...settings, headers: { ...settings.headers } });
      }),
    );
  }

  /** Adds a provider under `prefix`, so `'prefix:model'` works in `startAgent({ model })`. */
  register(prefix: string, provider: ModelFactory | ModelProvider): void {
    if (typeof prefix !== 'string' || !/^[a-z0-9][a-z0-9_.-]*$/i.test(prefix)) {
      throw new ConfigurationError(
        `Model provider prefix ${JSON.stringify(prefix)} must be letters, digits, "_", "-" or ".", such as "ollama".`,
      );
    }
    const definition = typeof provider === 'function' ? { create: provider } : provider;
    if (definition === null || typeof definition !== 'object' || typeof definition.create !== 'function') {
      throw new ConfigurationError(
        `Model provider "${prefix}" must be a function (modelId) => LanguageModel (an AI SDK 7 or 6 provider's model), or { create, check? }.`,
      );
    }
    this.providers.set(prefix, definition);
    for (const key of this.models.keys()) if (key.startsWith(`${prefix}:`)) this.models.delete(key);
  }

  /** The registered prefixes, sorted. */
  prefixes(): string[] {
    return [...this.providers.keys()].sort();
  }

  /** The environment variable (or setting) that holds the key of the provider of `spec`, if known. */
  keyHint(spec: string): string | undefined {
    return this.providers.get(spec.slice(0, spec.indexOf(':')))?.keyHint;
  }

  /** Checks `'provider:model'` now, at start-up: throws a ConfigurationError naming the fix. */
  check(spec: string): void {
    const [provider, modelId] = this.parse(spec);
    const problem = provider.check?.(modelId);
    if (problem !== undefined) throw new ConfigurationError(`Model "${spec}": ${problem}`);
  }

  /** The model for `'provider:model'`, made once and kept. */
  resolve(spec: string): Promise<LanguageModel> {
    let model = this.models.get(spec);
    if (model === undefined) {
      const [provider, modelId] = this.parse(spec);
      model = Promise.resolve()
        .then(() => provider.create(modelId))
        .then((made) => {
          if (!isLanguageModel(made)) {
            throw new ConfigurationError(
              `Model provider for "${spec}" returned ${describe(made)}, not a language model of AI SDK 7 or 6 (specificationVersion "v4" or "v3").`,
            );
          }
          return made;
        });
      model.catch(() => this.models.delete(spec));
      this.models.set(spec, model);
    }
    return model;
  }

  private parse(spec: string): [ModelProvider, string] {
    const colon = typeof spec === 'string' ? spec.indexOf(':') : -1;
    if (colon <= 0 || colon === spec.length - 1) {
      throw new ConfigurationError(
        `Model ${JSON.stringify(spec)} is not "provider:model"; write it such as "anthropic:claude-haiku-4-5" or "openai:gpt-5-mini", or pass an AI SDK language model.`,
      );
    }
    const prefix = spec.slice(0, colon);
    const provider = this.providers.get(prefix);
    if (provider === undefined) {
      throw new ConfigurationError(
        `Model "${spec}": no provider "${prefix}" is registered (there are: ${this.prefixes().join(', ')}). Register it with wardrik.models.register("${prefix}", (modelId) => model), or pass an AI SDK language model.`,
      );
    }
    return [provider, spec.slice(colon + 1)];
  }
}

export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value !== 'object') return typeof value;
  const version = (value as { specificationVersion?: unknown }).specificationVersion;
  return version === undefined ? 'an object' : `a model with specificationVersion ${JSON.stringify(version)}`;
}

interface ProviderInstance {
  languageModel(modelId: string): LanguageModel;
}

function builtIn(
  name: string,
  keyVariable: string,
  settings: ProviderSettings | undefined,
  load: (settings: ProviderSettings) => Promise<ProviderInstance>,
): ModelProvider {
  let instance: Promise<ProviderInstance> | undefined;
  return {
    keyHint: keyVariable,
    check: () =>
      settings?.apiKey !== undefined || (process.env[keyVariable] ?? '') !== ''
        ? undefined
        : `no API key: set ${keyVariable} in the environment, or pass agents: { providers: { ${name}: { apiKey } } } to Wardrik.create.`,
    create: async (modelId) => {
      instance ??= load({ ...settings });
      return (await instance).languageModel(modelId);
    },
  };
}
