import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createAnthropic as createAnthropicV3 } from '@ai-sdk/anthropic-v3';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAI as createOpenAIV3 } from '@ai-sdk/openai-v3';
import type { LanguageModel } from '../../src/index.js';
import { anthropicMessage, fakeApi, geminiResponse, openaiResponse, type FakeReply } from './fake-providers.js';
import { agentHarness, shopTools } from './helpers.js';

// This file runs in its own process: the keys and base URLs below are this test's alone.
for (const name of ['GOOGLE_GENERATIVE_AI_API_KEY', 'GOOGLE_GENERATIVE_AI_BASE_URL']) delete process.env[name];

const round = (usd: number): number => Math.round(usd * 1e9) / 1e9;

/** A model instance of one provider line, made against the fake at `url`, and that API's replies. */
interface Line {
  readonly name: string;
  readonly version: 'v4' | 'v3';
  readonly spec: string;
  readonly make: (url: string) => LanguageModel;
  readonly replies: () => FakeReply[];
  /** What the fake received as the tool's answer, in the second request. */
  readonly toolAnswer: (body: any) => string;
}

const findOrder = { tool: 'shop__find_order', id: 'call_1', input: { id: 'ord_1' } };
const anthropicReplies = () => [
  anthropicMessage([{ text: 'Let me look.' }, findOrder]),
  anthropicMessage([{ text: 'ord_1 has shipped.' }]),
];
const openaiReplies = () => [openaiResponse([findOrder]), openaiResponse([{ text: 'ord_1 has shipped.' }])];
const anthropicAnswer = (body: any) =>
  JSON.stringify(body.messages.at(-1).content.find((part: any) => part.type === 'tool_result').content);
const openaiAnswer = (body: any) =>
  JSON.stringify(body.input.find((item: any) => item.type === 'function_call_output').output);

const LINES: readonly Line[] = [
  {
    name: '@ai-sdk/anthropic 4 (AI SDK 7)',
    version: 'v4',
    spec: 'anthropic:claude-haiku-4-5',
    make: (url) => createAnthropic({ apiKey: 'test-key', baseURL: `${url}/v1` })('claude-haiku-4-5'),
    replies: anthropicReplies,
    toolAnswer: anthropicAnswer,
  },
  {
    name: '@ai-sdk/anthropic 3 (AI SDK 6)',
    version: 'v3',
    spec: 'anthropic:claude-haiku-4-5',
    make: (url) => createAnthropicV3({ apiKey: 'test-key', baseURL: `${url}/v1` })('claude-haiku-4-5'),
    replies: anthropicReplies,
    toolAnswer: anthropicAnswer,
  },
  {
    name: '@ai-sdk/openai 4 (AI SDK 7)',
    version: 'v4',
    spec: 'openai:gpt-5-mini',
    make: (url) => createOpenAI({ apiKey: 'test-key', baseURL: `${url}/v1` })('gpt-5-mini'),
    replies: openaiReplies,
    toolAnswer: openaiAnswer,
  },
  {
    name: '@ai-sdk/openai 3 (AI SDK 6)',
    version: 'v3',
    spec: 'openai:gpt-5-mini',
    make: (url) => createOpenAIV3({ apiKey: 'test-key', baseURL: `${url}/v1` })('gpt-5-mini'),
    replies: openaiReplies,
    toolAnswer: openaiAnswer,
  },
];

describe('Models of both AI SDK provider lines, through the real provider packages at the wire', () => {
  let replies: FakeReply[] = [];
  let api: Awaited<ReturnType<typeof fakeApi>>;
  before(async () => {
    api = await fakeApi(() => replies.shift() ?? { status: 500, body: { error: 'no reply scripted' } });
  });
  after(() => api.close());

  for (const line of LINES) {
    for (const how of ['passed to startAgent', 'returned by a registered provider'] as const) {
      it(`runs a turn with a tool call on a ${line.version} model of ${line.name}, ${how}, and prices it`, async () => {
        replies = line.replies();
        api.requests.length = 0;
        const log: string[] = [];
        const h = await agentHarness(shopTools(log));
        const instance = line.make(api.url);
        assert.equal(instance.specificationVersion, line.version);
        if (how === 'returned by a registered provider') h.wardrik.models.register('lab', () => instance);
        const agent = h.wardrik.startAgent({
          id: 'a',
          model: how === 'passed to startAgent' ? instance : 'lab:any',
          tools: ['shop/*'],
          // A registered prefix has no price of its own: give the one the table has for the real model.
          ...(how === 'passed to startAgent' ? {} : { price: { inputPerMTok: 1, outputPerMTok: 5 } }),
        });
        const costs: number[] = [];
        h.wardrik.costs$.subscribe((cost) => costs.push(cost.usd));
        const turn = await agent.send('Where is ord_1?');
        assert.equal(turn.status, 'done', turn.error);
        assert.equal(turn.text, 'ord_1 has shipped.');
        assert.deepEqual(log, ['find:ord_1:start', 'find:ord_1:end']);
        assert.equal(api.requests.length, 2);
        assert.match(line.toolAnswer(api.requests[1]!.body), /ord_1/);
        assert.equal(costs.length, 2, 'each model step is priced');
        assert.ok(costs.every((usd) => usd > 0));
        await h.close();
      });
    }
  }

  it('speaks to Gemini through the built-in google: provider (@ai-sdk/google 4) and prices it', async () => {
    replies = [
      geminiResponse([{ tool: 'shop__find_order', input: { id: 'ord_1' } }]),
      geminiResponse([{ text: 'ord_1 has shipped.' }]),
    ];
    api.requests.length = 0;
    const log: string[] = [];
    const h = await agentHarness(shopTools(log), {
      agents: { providers: { google: { apiKey: 'test-key', baseURL: `${api.url}/v1beta` } } },
    });
    const costs: number[] = [];
    h.wardrik.costs$.subscribe((cost) => costs.push(cost.usd));
    const turn = await h.wardrik
      .startAgent({ id: 'g', model: 'google:gemini-2.5-flash', tools: ['shop/*'] })
      .send('Where is ord_1?');
    assert.equal(turn.status, 'done', turn.error);
    assert.equal(turn.text, 'ord_1 has shipped.');
    assert.deepEqual(log, ['find:ord_1:start', 'find:ord_1:end']);
    assert.match(api.requests[0]!.path, /^\/v1beta\/models\/gemini-2\.5-flash:generateContent/);
    assert.equal(api.requests[0]!.headers['x-goog-api-key'], 'test-key');
    // gemini-2.5-flash: $0.30 in, $2.50 out per million; 1000 in and 200 out a step.
    assert.deepEqual(costs.map(round), [0.0008, 0.0008]);
    await h.close();
  });

  it('refuses to start a google: agent without a key, naming GOOGLE_GENERATIVE_AI_API_KEY', async () => {
    const h = await agentHarness(shopTools());
    assert.throws(
      () => h.wardrik.startAgent({ id: 'g', model: 'google:gemini-2.5-flash', tools: [] }),
      /no API key: set GOOGLE_GENERATIVE_AI_API_KEY in the environment, or pass agents: \{ providers: \{ google: \{ apiKey \} \} \}/,
    );
    await h.close();
  });
});
