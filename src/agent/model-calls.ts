import { APICallError } from '@ai-sdk/provider';
import type { Timers } from '../clock.js';
import type { EventBus } from '../telemetry/event-bus.js';
import { journaledArgumentsText } from '../tools/arguments.js';
import { backoffDelay, isTransient, sleep } from '../runner/transient.js';
import { generate, type LanguageModel, type ModelAnswer, type ModelCall } from './language-model.js';
import type { ModelStepData } from './messages.js';
import type { ModelRegistry } from './model-registry.js';
import { isSearchPart, type JournaledSearch, type ProviderSearch } from './provider-search.js';
import { Pricing, type ModelPrice, type ModelUsage } from './pricing.js';
import type { AgentTracing } from './tracing.js';
import type { LiveTurn } from './turn-state.js';

/** A model call that failed, described for the turn's error. */
export type ModelFailure = { readonly failed: string };

/** How model calls are retried: `agents.modelRetry`. */
export interface ModelRetry {
  readonly attempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  /** Where the jitter between tries comes from: the runner's `random`, so one option seeds every retry. */
  readonly random: () => number;
  /** Where the waits between tries are set: the runner's timers. */
  readonly timers: Timers;
}

/**
 * Model calls of agent turns: one `doGenerate` per step, under its own span, retried with backoff while
 * the failure is transient, each failure reported as `model.failed`. The answer becomes the step the
 * journal keeps (text, tool calls, usage and cost).
 */
export class ModelCalls {
  constructor(
    private readonly models: ModelRegistry,
    private readonly tracing: AgentTracing,
    private readonly events: EventBus,
    private readonly retry: ModelRetry,
  ) {}

  /** Asks the model for the next step, retrying transient failures; a failure is described, not thrown. */
  async next(d: LiveTurn): Promise<ModelStepData | ModelFailure> {
    const { rt } = d;
    let model: LanguageModel;
    try {
      model = await rt.model();
    } catch (error) {
      return { failed: `Model "${rt.spec}" could not be loaded: ${(error as Error).message}` };
    }
    const options: ModelCall = {
      prompt: d.prompt,
      ...(d.tools.length === 0 ? {} : { tools: d.tools, toolChoice: { type: 'auto' as const } }),
      ...(rt.options.maxOutputTokens === undefined ? {} : { maxOutputTokens: rt.options.maxOutputTokens }),
      ...(rt.options.temperature === undefined ? {} : { temperature: rt.options.temperature }),
      abortSignal: d.signal,
    };
    const stepNumber = d.modelSteps + 1;
    for (let attempt = 1; ; attempt++) {
      const span = this.tracing.chat(d.span, rt.modelId, rt.provider, {
        ...(rt.options.maxOutputTokens === undefined
          ? {}
          : { 'gen_ai.request.max_tokens': rt.options.maxOutputTokens }),
        ...(rt.options.temperature === undefined ? {} : { 'gen_ai.request.temperature': rt.options.temperature }),
      });
      const started = performance.now();
      try {
        const result = await generate(model, options);
        const step = modelStep(rt.spec, result, rt.price, rt.search);
        span.set({
          'gen_ai.response.model': result.response?.modelId ?? rt.modelId,
          ...(result.response?.id === undefined ? {} : { 'gen_ai.response.id': result.response.id }),
          'gen_ai.response.finish_reasons': [step.finishReason],
          'gen_ai.usage.input_tokens': step.usage.inputTokens,
          'gen_ai.usage.output_tokens': step.usage.outputTokens,
          'gen_ai.usage.cache_read.input_tokens': step.usage.cacheReadTokens,
          'gen_ai.usage.cache_creation.input_tokens': step.usage.cacheWriteTokens,
        });
        span.end();
        d.modelMs = performance.now() - started;
        return step;
      } catch (error) {
        const failure = modelFailure(rt.spec, this.models.keyHint(rt.spec), error, d.signal);
        span.fail(failure.type, failure.message);
        span.end();
        this.events.emit({
          type: 'model.failed',
          agent: rt.id,
          run: d.run,
          model: rt.spec,
          step: stepNumber,
          message: failure.message,
          attempt,
          durationMs: performance.now() - started,
          ...(failure.status === undefined ? {} : { status: failure.status }),
        });
        if (!failure.retryable || attempt >= this.retry.attempts || d.signal.aborted)
          return { failed: failure.message };
        if (
          !(await sleep(
            this.retry.timers,
            backoffDelay(attempt, this.retry.baseDelayMs, this.retry.maxDelayMs, this.retry.random),
            d.signal,
          ))
        )
          return { failed: failure.message };
      }
    }
  }
}

/** A model response as the journal keeps it. */
export function modelStep(
  spec: string,
  result: ModelAnswer,
  price: ModelPrice | undefined,
  search: ProviderSearch | undefined,
): ModelStepData {
  let text = '';
  const calls: { id: string; name: string; input: string }[] = [];
  const searches = new Map<string, JournaledSearch>();
  for (const part of result.content) {
    if (part.type === 'text') text += part.text;
    // Arguments too long to be within the limits are journaled (and run) as a note that is refused as too large.
    else if (part.type === 'tool-call' && part.providerExecuted !== true)
      calls.push({ id: part.toolCallId, name: part.toolName, input: journaledArgumentsText(part.input) });
    else if (part.type === 'tool-call' && isSearchPart(search, part.toolName))
      searches.set(part.toolCallId, {
        id: part.toolCallId,
        name: part.toolName,
        input: journaledArgumentsText(part.input),
        ...(part.providerMetadata === undefined ? {} : { callMetadata: part.providerMetadata }),
      });
    else if (part.type === 'tool-result' && isSearchPart(search, part.toolName)) {
      const call = searches.get(part.toolCallId);
      if (call !== undefined)
        searches.set(part.toolCallId, {
          ...call,
          result: part.result,
          ...(part.isError === true ? { error: true } : {}),
          ...(part.providerMetadata === undefined ? {} : { resultMetadata: part.providerMetadata }),
        });
    }
  }
  const input = result.usage.inputTokens;
  const cacheRead = input.cacheRead ?? 0;
  const cacheWrite = input.cacheWrite ?? 0;
  const usage: ModelUsage = {
    inputTokens: input.total ?? (input.noCache ?? 0) + cacheRead + cacheWrite,
    outputTokens: result.usage.outputTokens.total ?? 0,
    cacheReadTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
  };
  return {
    kind: 'model',
    model: spec,
    text,
    calls,
    ...(searches.size === 0 ? {} : { searches: [...searches.values()] }),
    finishReason: result.finishReason.unified,
    usage,
    usd: price === undefined ? 0 : Pricing.usd(price, usage),
  };
}

/** What went wrong with a model call, in words that say what to do, and whether trying again may help. */
function modelFailure(
  spec: string,
  keyHint: string | undefined,
  error: unknown,
  signal: AbortSignal,
): { readonly message: string; readonly type: string; readonly retryable: boolean; readonly status?: number } {
  if (signal.aborted)
    return { message: `The turn was stopped during a call to model "${spec}".`, type: 'aborted', retryable: false };
  if (APICallError.isInstance(error)) {
    const status = error.statusCode;
    const hint =
      status === 401 || status === 403
        ? `Check the API key${keyHint === undefined ? '' : ` (${keyHint})`}.`
        : status === 404
          ? 'Check the model id and the base URL.'
          : status === 429
            ? 'The provider is limiting requests or the account is out of credit: wait and try again, send less, or raise the limit.'
            : status !== undefined && status >= 500
              ? 'The provider had an error: try again later.'
              : status === undefined
                ? `Could not reach ${error.url}: check the network and the base URL.`
                : 'The provider refused the request.';
    const what = status === undefined ? '' : ` with HTTP ${status}`;
    return {
      message: `Model "${spec}" failed${what}: ${error.message.replace(/[.\s]+$/, '')}. ${hint}`,
      type: status === undefined ? 'connection' : String(status),
      retryable: error.isRetryable,
      ...(status === undefined ? {} : { status }),
    };
  }
  const message = error instanceof Error ? error.message : String(error);
  return {
    message: `Model "${spec}" failed: ${message}`,
    type: error instanceof Error ? error.name : 'error',
    retryable: isTransient(error),
  };
}
