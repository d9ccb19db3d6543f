import type { JSONValue, LanguageModelV3Message, LanguageModelV3ToolResultPart } from '@ai-sdk/provider';
import type { JournaledSearch } from './provider-search.js';
import type { ModelUsage } from './pricing.js';
import type { ValueTableSnapshot } from '../tools/value-table.js';

/**
 * A turn's journal (`store.appendStep`), one record per step, written once. A `model` step is the
 * model's response, written before any of its tool calls runs; a `tools` step holds the answers the
 * model then read, written once every call of the step has its final answer. The conversation is
 * rebuilt from these alone, so a turn resumes on any node without asking the model again.
 */
export type StepData = ModelStepData | ToolsStepData;

export interface ModelStepData {
  readonly kind: 'model';
  /** `provider:model` */
  readonly model: string;
  readonly text: string;
  /** Tool calls in the model's order; `input` is the JSON text the model produced. */
  readonly calls: readonly { readonly id: string; readonly name: string; readonly input: string }[];
  /** The provider's own tool searches in the answer (`toolSearch: 'provider'`), sent back with it; else absent. */
  readonly searches?: readonly JournaledSearch[];
  readonly finishReason: string;
  readonly usage: ModelUsage;
  readonly usd: number;
}

export interface ToolsStepData {
  readonly kind: 'tools';
  readonly results: readonly {
    readonly id: string;
    readonly name: string;
    readonly text: string;
    readonly error: boolean;
  }[];
  /**
   * With `labels: 'values'`: the outside values this step's answers were held as (their handles are in
   * `results`), committed with them, so a turn taken up on another node resolves the same handles.
   */
  readonly values?: ValueTableSnapshot;
}

export function userMessage(text: string): LanguageModelV3Message {
  return { role: 'user', content: [{ type: 'text', text }] };
}

export function assistantMessage(step: ModelStepData): LanguageModelV3Message {
  const content: Extract<LanguageModelV3Message, { role: 'assistant' }>['content'] = [];
  if (step.text !== '') content.push({ type: 'text', text: step.text });
  for (const search of step.searches ?? []) {
    content.push({
      type: 'tool-call',
      toolCallId: search.id,
      toolName: search.name,
      input: parseInput(search.input),
      providerExecuted: true,
      ...(search.callMetadata === undefined ? {} : { providerOptions: search.callMetadata }),
    });
    if (search.result !== undefined)
      content.push({
        type: 'tool-result',
        toolCallId: search.id,
        toolName: search.name,
        output:
          search.error === true
            ? { type: 'error-json', value: search.result as JSONValue }
            : { type: 'json', value: search.result as JSONValue },
        ...(search.resultMetadata === undefined ? {} : { providerOptions: search.resultMetadata }),
      });
  }
  for (const call of step.calls)
    content.push({ type: 'tool-call', toolCallId: call.id, toolName: call.name, input: parseInput(call.input) });
  return { role: 'assistant', content };
}

export function toolMessage(step: ToolsStepData): LanguageModelV3Message {
  return {
    role: 'tool',
    content: step.results.map((result): LanguageModelV3ToolResultPart => ({
      type: 'tool-result',
      toolCallId: result.id,
      toolName: result.name,
      output: result.error ? { type: 'error-text', value: result.text } : { type: 'text', value: result.text },
    })),
  };
}

/** The messages of a turn: its user text, then each journaled step. */
export function turnMessages(input: string, steps: readonly StepData[]): LanguageModelV3Message[] {
  const messages = [userMessage(input)];
  for (const step of steps) messages.push(step.kind === 'model' ? assistantMessage(step) : toolMessage(step));
  return messages;
}

/** Tool input as the provider expects it back: the parsed object, or the raw text when it is not JSON. */
function parseInput(input: string): unknown {
  try {
    return JSON.parse(input);
  } catch {
    return input;
  }
}
