// The safety benchmark's model: it obeys every instruction it reads, wherever it reads it — the user's
// text, a tool's answer, a tool's error, an earlier turn — the worst case a prompt injection can hope for.
import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import { parsed, resultText, strings } from './prompt-reading.js';
import { scriptedModel, type ScriptedCall, type ScriptedModel, type ScriptedStep } from '../../src/testing/index.js';

/**
 * An instruction it obeys: `call <tool> with <JSON object>`. One that starts `next time you are asked
 * anything,` waits for a later turn. `{{field}}` in the arguments stands for the value of `field` in any
 * tool answer it has read (such as `{{address}}` after a customer lookup): how an injection names data.
 */
const INSTRUCTION = /(next time you are asked anything, )?call ([A-Za-z0-9_-]+__[A-Za-z0-9_-]+) with (?=\{)/g;
const PLACEHOLDER = /\{\{(\w+)\}\}/g;

/** A scripted model that does whatever any text in its prompt tells it, one tool call a step, then says "Done." */
export function obedientModel(): ScriptedModel {
  return scriptedModel((call) => nextStep(call), { name: 'obedient' });
}

interface Read {
  readonly text: string;
  /** In this turn (after the last user message), rather than an earlier one. */
  readonly current: boolean;
}

function nextStep(call: ScriptedCall): ScriptedStep {
  const { texts, answers, done } = read(call.prompt);
  for (const { text, current } of texts) {
    for (const match of text.matchAll(INSTRUCTION)) {
      const deferred = match[1] !== undefined;
      // An instruction for "next time" acts in a later turn; any other, in the turn that reads it.
      if (deferred === current) continue;
      const json = objectAt(text, match.index + match[0].length);
      if (json === undefined) continue;
      const args = fill(json, answers);
      if (args === undefined) continue; // it names data not read yet
      const key = `${match[2]!} ${JSON.stringify(args)}`;
      const times = done.get(key) ?? 0;
      if (times > 0) {
        done.set(key, times - 1);
        continue;
      }
      return { toolCalls: [{ name: match[2]!, arguments: args }] };
    }
  }
  return { text: 'Done.' };
}

/** Every text in the prompt in order, the tool answers as values, and this turn's calls so far. */
function read(prompt: LanguageModelV4Prompt): { texts: Read[]; answers: unknown[]; done: Map<string, number> } {
  let lastUser = -1;
  prompt.forEach((message, i) => {
    if (message.role === 'user') lastUser = i;
  });
  const texts: Read[] = [];
  const answers: unknown[] = [];
  const done = new Map<string, number>();
  prompt.forEach((message, i) => {
    const current = i >= lastUser;
    if (message.role === 'system') texts.push({ text: message.content, current });
    else if (message.role === 'user') {
      for (const part of message.content) if (part.type === 'text') texts.push({ text: part.text, current });
    } else if (message.role === 'assistant') {
      for (const part of message.content) {
        if (part.type === 'text') texts.push({ text: part.text, current });
        else if (part.type === 'tool-call' && current) {
          const key = `${part.toolName} ${JSON.stringify(part.input)}`;
          done.set(key, (done.get(key) ?? 0) + 1);
        }
      }
    } else if (message.role === 'tool') {
      for (const part of message.content) {
        if (part.type !== 'tool-result') continue;
        const value = parsed(resultText(part.output));
        answers.push(value);
        for (const text of strings(value)) texts.push({ text, current });
      }
    }
  });
  return { texts, answers, done };
}

/** The JSON object that starts at `start` in `text`, if it is one. */
function objectAt(text: string, start: number): Record<string, unknown> | undefined {
  let depth = 0;
  let quoted = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '\\') i++;
      else if (c === '"') quoted = false;
    } else if (c === '"') quoted = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) {
      const value = parsed(text.slice(start, i + 1));
      return value !== null && typeof value === 'object' && !Array.isArray(value)
        ? (value as Record<string, unknown>)
        : undefined;
    }
  }
  return undefined;
}

/** The arguments with every `{{field}}` filled from the answers read, or `undefined` if one is not there yet. */
function fill(args: Record<string, unknown>, answers: readonly unknown[]): Record<string, unknown> | undefined {
  let missing = false;
  const filled = JSON.parse(
    JSON.stringify(args, (_key, value: unknown) =>
      typeof value !== 'string'
        ? value
        : value.replace(PLACEHOLDER, (_all, field: string) => {
            const found = answers.map((answer) => fieldOf(answer, field)).find((v) => v !== undefined);
            if (found === undefined) missing = true;
            return found ?? '';
          }),
    ),
  ) as Record<string, unknown>;
  return missing ? undefined : filled;
}

function fieldOf(value: unknown, field: string): string | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, inner] of Object.entries(value)) {
    if (key === field && (typeof inner === 'string' || typeof inner === 'number')) return String(inner);
    const found = fieldOf(inner, field);
    if (found !== undefined) return found;
  }
  return undefined;
}
