import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3Message,
  LanguageModelV3ToolResultPart,
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4Message,
  LanguageModelV4ToolResultPart,
} from '@ai-sdk/provider';

/** A model of either AI SDK provider line: V4 (AI SDK 7 providers) or V3 (AI SDK 6 providers). */
export type LanguageModel = LanguageModelV4 | LanguageModelV3;

/** The call Wardrik makes: V3's shape, which V4 spells alike for every part Wardrik writes. */
export type ModelCall = LanguageModelV3CallOptions;

/** What Wardrik reads of a model's answer, which both lines give alike. */
export interface ModelAnswer {
  readonly content: readonly (LanguageModelV4Content | LanguageModelV3Content)[];
  readonly usage: {
    readonly inputTokens: {
      readonly total: number | undefined;
      readonly noCache: number | undefined;
      readonly cacheRead: number | undefined;
      readonly cacheWrite: number | undefined;
    };
    readonly outputTokens: { readonly total: number | undefined };
  };
  readonly finishReason: { readonly unified: string };
  readonly response?: { readonly id?: string; readonly modelId?: string };
}

/** True for a model of either line; anything else (a V2 model, a string, a plain object) is not. */
export function isLanguageModel(value: unknown): value is LanguageModel {
  const model = value as LanguageModel | null;
  return (
    model !== null &&
    typeof model === 'object' &&
    (model.specificationVersion === 'v4' || model.specificationVersion === 'v3') &&
    typeof model.doGenerate === 'function'
  );
}

/** One `doGenerate` on either line. */
export async function generate(model: LanguageModel, call: ModelCall): Promise<ModelAnswer> {
  if (model.specificationVersion === 'v3') return model.doGenerate(call);
  const v4: LanguageModelV4CallOptions = { ...call, prompt: call.prompt.map(toV4) };
  return model.doGenerate(v4);
}

/**
 * A message as V4 spells it. Wardrik's prompts hold text, tool calls and their text or error-text results
 * (src/agent/messages.ts), spelt alike on both lines; anything else would be a message Wardrik never writes.
 */
function toV4(message: LanguageModelV3Message): LanguageModelV4Message {
  switch (message.role) {
    case 'system':
      return message;
    case 'user':
      return { role: 'user', content: message.content.map((part) => text(part, 'user')) };
    case 'assistant':
      return {
        role: 'assistant',
        content: message.content.map((part) =>
          part.type === 'tool-call'
            ? part
            : part.type === 'tool-result'
              ? providerResult(part)
              : text(part, 'assistant'),
        ),
      };
    case 'tool':
      return {
        role: 'tool',
        content: message.content.map((part) => {
          if (part.type !== 'tool-result' || (part.output.type !== 'text' && part.output.type !== 'error-text'))
            throw new Error(
              `Wardrik writes no ${part.type} ${part.type === 'tool-result' ? part.output.type : ''} part`,
            );
          return { type: 'tool-result', toolCallId: part.toolCallId, toolName: part.toolName, output: part.output };
        }),
      };
  }
}

/** A result of the provider's own tool (its tool search) in an assistant message: JSON, spelt alike on both lines. */
function providerResult(part: LanguageModelV3ToolResultPart): LanguageModelV4ToolResultPart {
  if (part.output.type !== 'json' && part.output.type !== 'error-json')
    throw new Error(`Wardrik writes no ${part.output.type} result of a provider's tool`);
  return {
    type: 'tool-result',
    toolCallId: part.toolCallId,
    toolName: part.toolName,
    output: part.output,
    ...(part.providerOptions === undefined ? {} : { providerOptions: part.providerOptions }),
  };
}

function text(part: { type: string; text?: string }, role: string): { type: 'text'; text: string } {
  if (part.type !== 'text' || part.text === undefined)
    throw new Error(`Wardrik writes no ${part.type} part in a ${role} message`);
  return { type: 'text', text: part.text };
}

/** `provider:model` as Wardrik names a model instance: `anthropic.messages` → `anthropic`. */
export function modelName(model: LanguageModel): string {
  const provider = String(model.provider);
  const dot = provider.indexOf('.');
  return `${dot > 0 ? provider.slice(0, dot) : provider}:${model.modelId}`;
}
