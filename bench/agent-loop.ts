// The agent loop both sides of the agent benchmarks run: a fake LanguageModelV3 (MockLanguageModelV3
// from ai/test) that asks for one trivial tool every step, driven by Wardrik's turn loop or by the AI
// SDK's generateText loop (stopWhen: stepCountIs(n)).
import type { LanguageModelV3GenerateResult } from '@ai-sdk/provider';
import { generateText, jsonSchema, stepCountIs, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { defineTool, Wardrik, type Store } from '../src/index.js';

const work = (n: number): number => n + 1;
let nextId = 0;

/** Every step asks for the tool once; the loop's step limit ends the turn. */
export function fakeModel(): MockLanguageModelV3 {
  const model = new MockLanguageModelV3({
    provider: 'mock',
    modelId: 'mock-model',
    doGenerate: async (): Promise<LanguageModelV3GenerateResult> => ({
      content: [{ type: 'tool-call', toolCallId: `call_${nextId++}`, toolName: 'b__bump', input: '{}' }],
      finishReason: { unified: 'tool-calls', raw: 'tool_use' },
      usage: {
        inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
        outputTokens: { total: 5, text: 5, reasoning: 0 },
      },
      warnings: [],
    }),
  });
  return model;
}

export const bump = defineTool({
  name: 'bump',
  description: 'Adds one.',
  input: { type: 'object', properties: {}, additionalProperties: false },
  annotations: { readOnly: true },
  run: () => work(1),
});
const aiTools = {
  b__bump: tool({
    description: 'Adds one.',
    inputSchema: jsonSchema<Record<string, never>>({ type: 'object', properties: {}, additionalProperties: false }),
    execute: async () => work(1),
  }),
};

export async function wardrikLoop(
  store: string | Store,
  steps: number,
  label: string,
): Promise<[Wardrik, () => Promise<unknown>, string]> {
  const wardrik = await Wardrik.create({ store, recoverMs: Infinity, tools: { b: [bump] } });
  const model = fakeModel();
  // Each turn stands alone, like one generateText call: no earlier turns in the prompt.
  const agent = wardrik.startAgent({ id: `bench-${steps}`, model, tools: ['b/*'], maxSteps: steps, historyTurns: 0 });
  return [
    wardrik,
    async () => {
      model.doGenerateCalls.length = 0;
      const turn = await agent.send('Bump.');
      if (turn.steps !== steps) throw new Error(`expected ${steps} steps, got ${turn.steps}: ${turn.error}`);
    },
    label,
  ];
}

export function aiSdkLoop(steps: number): () => Promise<unknown> {
  const model = fakeModel();
  return async () => {
    model.doGenerateCalls.length = 0;
    const result = await generateText({ model, tools: aiTools, prompt: 'Bump.', stopWhen: stepCountIs(steps) });
    if (result.steps.length !== steps) throw new Error(`expected ${steps} steps, got ${result.steps.length}`);
  };
}
