// Reading a prompt as a scripted model does: tool answers as text and as values. Shared by the safety
// corpus's obedient model and AgentDojo's obeying model (bench/agentdojo/).
import type { LanguageModelV4ToolResultPart } from '@ai-sdk/provider';

/** A tool answer's text as the model reads it: the text of a text or error answer, else its JSON. */
export function resultText(output: LanguageModelV4ToolResultPart['output']): string {
  return output.type === 'text' || output.type === 'error-text'
    ? output.value
    : JSON.stringify('value' in output ? output.value : null);
}

/** The text parsed as JSON, or the text itself when it is not JSON. */
export function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Every string inside a value, depth first. */
export function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (value === null || typeof value !== 'object') return [];
  return Object.values(value).flatMap(strings);
}
