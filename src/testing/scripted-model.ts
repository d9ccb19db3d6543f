import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4FunctionTool,
  LanguageModelV4GenerateResult,
  LanguageModelV4Prompt,
  LanguageModelV4StreamPart,
  LanguageModelV4StreamResult,
  LanguageModelV4Usage,
} from '@ai-sdk/provider';
import { ConfigurationError } from '../errors.js';

/** Every text a scripted model produces starts with this, so nobody mistakes it for a real model. */
export const SCRIPTED_PREFIX = '[scripted] ';

/** One response of a scripted model: text, tool calls, or both; or an error it throws. */
export interface ScriptedStep {
  /** Said as `[scripted] <text>`. */
  readonly text?: string;
  /** Tool calls by the name the model sees (`orders__find_order`); ids are made up when left out. */
  readonly toolCalls?: readonly { readonly name: string; readonly arguments?: unknown; readonly id?: string }[];
  /** Tokens to report for this step: none unless given here or in the model's options. */
  readonly usage?: { readonly inputTokens?: number; readonly outputTokens?: number; readonly cacheReadTokens?: number };
  /** Thrown instead of answering, to test how a model error is handled. */
  readonly error?: Error | string;
}

/** What a script step computed from the conversation sees. */
export interface ScriptedCall {
  /** 0 for the model's first call, 1 for the next … */
  readonly index: number;
  readonly prompt: LanguageModelV4Prompt;
  readonly tools: readonly LanguageModelV4FunctionTool[];
  /** The text of the last tool result in the prompt, if the last message is tool results. */
  readonly lastToolResult: string | undefined;
}

/** Steps played in order (each a step or a function of the call), or one function for every call. */
export type Script =
  readonly (ScriptedStep | ((call: ScriptedCall) => ScriptedStep))[] | ((call: ScriptedCall) => ScriptedStep);

export interface ScriptedModelOptions {
  /** Its model id: `scripted-model` unless given; the provider is always `scripted`. */
  readonly name?: string;
  /** Usage reported for steps that give none. */
  readonly usage?: ScriptedStep['usage'];
}

/**
 * A LanguageModelV4 that plays a script instead of calling a provider, for tests and offline demos.
 * It says it is scripted wherever it appears: its provider is `scripted`, its id starts with
 * `scripted`, and every text it produces starts with `[scripted] `. `calls` records what it was asked.
 */
export class ScriptedModel implements LanguageModelV4 {
  readonly specificationVersion = 'v4';
  readonly provider = 'scripted';
  readonly modelId: string;
  readonly supportedUrls: Record<string, RegExp[]> = {};
  /** Each call's options, with a copy of the prompt as it was then. */
  readonly calls: LanguageModelV4CallOptions[] = [];
  private nextCall = 0;

  constructor(
    private readonly script: Script,
    private readonly options: ScriptedModelOptions = {},
  ) {
    const name = options.name ?? 'scripted-model';
    this.modelId = name.startsWith('scripted') ? name : `scripted-${name}`;
  }

  /** How many steps of an array script are left. */
  get remaining(): number {
    return typeof this.script === 'function' ? Infinity : Math.max(0, this.script.length - this.nextCall);
  }

  async doGenerate(options: LanguageModelV4CallOptions): Promise<LanguageModelV4GenerateResult> {
    const index = this.nextCall++;
    this.calls.push({ ...options, prompt: [...options.prompt] });
    const step = this.stepAt(index, options);
    if (step.error !== undefined)
      throw typeof step.error === 'string' ? new Error(`${SCRIPTED_PREFIX}${step.error}`) : step.error;
    const content: LanguageModelV4Content[] = [];
    if (step.text !== undefined) content.push({ type: 'text', text: `${SCRIPTED_PREFIX}${step.text}` });
    let n = 0;
    for (const call of step.toolCalls ?? []) {
      content.push({
        type: 'tool-call',
        toolCallId: call.id ?? `scripted-${index}-${n++}`,
        toolName: call.name,
        input: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {}),
      });
    }
    const hasCalls = (step.toolCalls?.length ?? 0) > 0;
    return {
      content,
      finishReason: {
        unified: hasCalls ? 'tool-calls' : 'stop',
        raw: hasCalls ? 'scripted-tool-calls' : 'scripted-stop',
      },
      usage: usageOf(step.usage ?? this.options.usage),
      response: { id: `scripted-response-${index}`, modelId: this.modelId, timestamp: new Date(0) },
      warnings: [],
    };
  }

  async doStream(options: LanguageModelV4CallOptions): Promise<LanguageModelV4StreamResult> {
    const result = await this.doGenerate(options);
    const parts: LanguageModelV4StreamPart[] = [{ type: 'stream-start', warnings: [] }];
    result.content.forEach((part, i) => {
      if (part.type === 'text') {
        parts.push(
          { type: 'text-start', id: `t${i}` },
          { type: 'text-delta', id: `t${i}`, delta: part.text },
          { type: 'text-end', id: `t${i}` },
        );
      } else if (part.type === 'tool-call') {
        parts.push(part);
      }
    });
    parts.push({ type: 'finish', usage: result.usage, finishReason: result.finishReason });
    return {
      stream: new ReadableStream({
        start(controller) {
          for (const part of parts) controller.enqueue(part);
          controller.close();
        },
      }),
    };
  }

  private stepAt(index: number, options: LanguageModelV4CallOptions): ScriptedStep {
    const call = (): ScriptedCall => ({
      index,
      prompt: options.prompt,
      tools: (options.tools ?? []).filter((tool): tool is LanguageModelV4FunctionTool => tool.type === 'function'),
      lastToolResult: lastToolResult(options.prompt),
    });
    if (typeof this.script === 'function') return this.script(call());
    const step = this.script[index];
    if (step === undefined) {
      throw new ConfigurationError(
        `${SCRIPTED_PREFIX}The scripted model "${this.modelId}" has ${this.script.length} steps and was asked for step ${index + 1}; add steps to its script.`,
      );
    }
    return typeof step === 'function' ? step(call()) : step;
  }
}

/** A scripted model: `scriptedModel([{ toolCalls: [{ name: 'orders__find_order', arguments }] }, { text: 'Done.' }])`. */
export function scriptedModel(script: Script, options?: ScriptedModelOptions): ScriptedModel {
  if (typeof script !== 'function' && !Array.isArray(script)) {
    throw new ConfigurationError(
      `scriptedModel(script) takes an array of steps ({ text?, toolCalls? }) or a function (call) => step; got ${script === null ? 'null' : typeof script}.`,
    );
  }
  return new ScriptedModel(script, options);
}

function usageOf(usage: ScriptedStep['usage']): LanguageModelV4Usage {
  const input = usage?.inputTokens ?? 0;
  const cacheRead = usage?.cacheReadTokens ?? 0;
  return {
    inputTokens: { total: input, noCache: input - cacheRead, cacheRead, cacheWrite: 0 },
    outputTokens: { total: usage?.outputTokens ?? 0, text: usage?.outputTokens ?? 0, reasoning: 0 },
  };
}

function lastToolResult(prompt: LanguageModelV4Prompt): string | undefined {
  const last = prompt[prompt.length - 1];
  if (last?.role !== 'tool') return undefined;
  const part = last.content[last.content.length - 1];
  if (part?.type !== 'tool-result') return undefined;
  const output = part.output;
  return output.type === 'text' || output.type === 'error-text'
    ? output.value
    : JSON.stringify('value' in output ? output.value : output);
}
