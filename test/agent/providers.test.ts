import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConfigurationError, type CostEvent, type ModelFailedEvent } from '../../src/index.js';
import { scriptedModel } from '../../src/testing/index.js';
import {
  anthropicError,
  anthropicMessage,
  fakeApi,
  openaiError,
  openaiResponse,
  type FakeReply,
} from './fake-providers.js';
import { agentHarness, shopTools } from './helpers.js';

// This file runs in its own process: the keys and base URLs below are this test's alone.
for (const name of ['ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL', 'OPENAI_API_KEY', 'OPENAI_BASE_URL'])
  delete process.env[name];

const round = (usd: number): number => Math.round(usd * 1e9) / 1e9;
const findOrder = { tool: 'shop__find_order', id: 'call_1', input: { id: 'ord_1' } };

describe('Models through the real provider packages, against loopback fakes of their APIs', () => {
  describe('anthropic: (Messages API)', () => {
    let replies: FakeReply[] = [];
    let api: Awaited<ReturnType<typeof fakeApi>>;
    before(async () => {
      api = await fakeApi((request) => {
        if (request.headers['x-api-key'] !== 'test-key')
          return anthropicError(401, 'authentication_error', 'invalid x-api-key');
        return replies.shift() ?? anthropicError(500, 'api_error', 'no reply scripted');
      });
    });
    after(() => api.close());
    const start = async (apiKey = 'test-key') => {
      api.requests.length = 0;
      const h = await agentHarness(shopTools(), {
        agents: {
          providers: { anthropic: { apiKey, baseURL: `${api.url}/v1` } },
          modelRetry: { baseDelayMs: 1, maxDelayMs: 2 },
        },
      });
      return {
        h,
        agent: h.wardrik.startAgent({
          id: 'a',
          model: 'anthropic:claude-haiku-4-5',
          tools: ['shop/*'],
          instructions: 'Help with orders.',
        }),
      };
    };

    it('sends the tools and the conversation, runs the tool_use the model asks for, and returns its final text', async () => {
      replies = [
        anthropicMessage([{ text: 'Let me look.' }, findOrder]),
        anthropicMessage([{ text: 'ord_1 has shipped.' }]),
      ];
      const { h, agent } = await start();
      const turn = await agent.send('Where is ord_1?');
      assert.equal(turn.status, 'done');
      assert.equal(turn.text, 'ord_1 has shipped.');
      const [first, second] = api.requests;
      assert.equal(first!.path, '/v1/messages');
      assert.equal(first!.body.model, 'claude-haiku-4-5');
      assert.equal(first!.body.stream, undefined);
      assert.deepEqual(first!.body.system, [{ type: 'text', text: 'Help with orders.' }]);
      assert.deepEqual(first!.body.tools.map((tool: { name: string }) => tool.name).sort(), [
        'shop__broken',
        'shop__find_order',
        'shop__quote',
        'shop__refund',
        'wardrik__read', // the reader, sent with the defaults (labels on values)
      ]);
      const lookup = first!.body.tools.find((tool: { name: string }) => tool.name === 'shop__find_order');
      assert.equal(lookup.input_schema.properties.id.type, 'string');
      const last = second!.body.messages.at(-1);
      assert.equal(last.role, 'user');
      assert.equal(last.content[0].type, 'tool_result');
      assert.equal(last.content[0].tool_use_id, 'call_1');
      assert.match(JSON.stringify(last.content[0].content), /shipped/);
      await h.close();
    });

    it('prices each step from the usage the API reports (claude-haiku-4-5: $1 in, $5 out per million)', async () => {
      replies = [
        anthropicMessage([findOrder], { input: 1000, output: 200 }),
        anthropicMessage([{ text: 'Done.' }], { input: 2000, output: 100 }),
      ];
      const { h, agent } = await start();
      const turn = await agent.send('Where is ord_1?');
      const costs = h.events.filter((e): e is CostEvent => e.type === 'cost');
      assert.deepEqual(
        costs.map((c) => [c.source, round(c.usd)]),
        [
          ['model', 0.002],
          ['model', 0.0025],
        ],
      );
      assert.equal(round(turn.spentUsd), 0.0045);
      await h.close();
    });

    it('fails the turn on 401 with the provider’s message and the key to check', async () => {
      const { h, agent } = await start('wrong-key');
      const turn = await agent.send('hi');
      assert.equal(turn.status, 'failed');
      assert.equal(
        turn.error,
        'Model "anthropic:claude-haiku-4-5" failed with HTTP 401: invalid x-api-key. Check the API key (ANTHROPIC_API_KEY).',
      );
      assert.equal(api.requests.length, 1, 'a 401 is not retried');
      await h.close();
    });

    it('retries a 429 and then fails the turn saying it is rate-limited', async () => {
      replies = [0, 1, 2].map(() =>
        anthropicError(429, 'rate_limit_error', 'Number of requests has exceeded your rate limit'),
      );
      const { h, agent } = await start();
      const turn = await agent.send('hi');
      assert.equal(turn.status, 'failed');
      assert.match(
        turn.error!,
        /^Model "anthropic:claude-haiku-4-5" failed with HTTP 429: Number of requests has exceeded your rate limit\. The provider is limiting requests/,
      );
      assert.equal(api.requests.length, 3);
      assert.deepEqual(
        h.events.filter((e): e is ModelFailedEvent => e.type === 'model.failed').map((e) => [e.attempt, e.status]),
        [
          [1, 429],
          [2, 429],
          [3, 429],
        ],
      );
      await h.close();
    });

    it('goes on when a retried 500 is followed by an answer', async () => {
      replies = [anthropicError(500, 'api_error', 'Internal server error'), anthropicMessage([{ text: 'Hello.' }])];
      const { h, agent } = await start();
      const turn = await agent.send('hi');
      assert.equal(turn.status, 'done');
      assert.equal(turn.text, 'Hello.');
      await h.close();
    });

    it('fails the turn on a lasting 500 saying to try again later', async () => {
      replies = [0, 1, 2].map(() => anthropicError(500, 'api_error', 'Internal server error'));
      const { h, agent } = await start();
      const turn = await agent.send('hi');
      assert.equal(
        turn.error,
        'Model "anthropic:claude-haiku-4-5" failed with HTTP 500: Internal server error. The provider had an error: try again later.',
      );
      await h.close();
    });

    it('takes the key and base URL from ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL', async () => {
      process.env.ANTHROPIC_API_KEY = 'test-key';
      process.env.ANTHROPIC_BASE_URL = `${api.url}/v1`;
      try {
        replies = [anthropicMessage([{ text: 'From the environment.' }])];
        api.requests.length = 0;
        const h = await agentHarness(shopTools());
        const turn = await h.wardrik.startAgent({ id: 'a', model: 'anthropic:claude-haiku-4-5', tools: [] }).send('hi');
        assert.equal(turn.text, 'From the environment.');
        assert.equal(api.requests[0]!.headers['x-api-key'], 'test-key');
        await h.close();
      } finally {
        delete process.env.ANTHROPIC_API_KEY;
        delete process.env.ANTHROPIC_BASE_URL;
      }
    });

    it('refuses to start an agent without a key, naming ANTHROPIC_API_KEY', async () => {
      const h = await agentHarness(shopTools());
      assert.throws(
        () => h.wardrik.startAgent({ id: 'a', model: 'anthropic:claude-haiku-4-5', tools: [] }),
        (error: unknown) =>
          error instanceof ConfigurationError &&
          error.message ===
            'Model "anthropic:claude-haiku-4-5": no API key: set ANTHROPIC_API_KEY in the environment, or pass agents: { providers: { anthropic: { apiKey } } } to Wardrik.create.',
      );
      await h.close();
    });
  });

  describe('openai: (Responses API, the provider’s default)', () => {
    let replies: FakeReply[] = [];
    let api: Awaited<ReturnType<typeof fakeApi>>;
    before(async () => {
      api = await fakeApi((request) => {
        if (request.headers.authorization !== 'Bearer test-key')
          return openaiError(401, 'invalid_api_key', 'Incorrect API key provided: wrong-key.');
        return replies.shift() ?? openaiError(500, 'server_error', 'no reply scripted');
      });
    });
    after(() => api.close());
    const start = async (apiKey = 'test-key') => {
      api.requests.length = 0;
      const h = await agentHarness(shopTools(), {
        agents: {
          providers: { openai: { apiKey, baseURL: `${api.url}/v1` } },
          modelRetry: { baseDelayMs: 1, maxDelayMs: 2 },
        },
      });
      return { h, agent: h.wardrik.startAgent({ id: 'a', model: 'openai:gpt-5-mini', tools: ['shop/find_order'] }) };
    };

    it('runs the function_call the model asks for and sends its output back', async () => {
      replies = [openaiResponse([findOrder]), openaiResponse([{ text: 'Shipped.' }])];
      const { h, agent } = await start();
      const turn = await agent.send('Where is ord_1?');
      assert.equal(turn.status, 'done');
      assert.equal(turn.text, 'Shipped.');
      const [first, second] = api.requests;
      assert.equal(first!.path, '/v1/responses');
      assert.equal(first!.body.model, 'gpt-5-mini');
      assert.deepEqual(
        first!.body.tools.map((tool: { type: string; name: string }) => [tool.type, tool.name]),
        [
          ['function', 'shop__find_order'],
          ['function', 'wardrik__read'], // the reader, sent with the defaults (labels on values)
        ],
      );
      const output = second!.body.input.find((item: { type: string }) => item.type === 'function_call_output');
      assert.equal(output.call_id, 'call_1');
      assert.match(output.output, /shipped/);
      await h.close();
    });

    it('prices the step (gpt-5-mini: $0.25 in, $2 out per million)', async () => {
      replies = [openaiResponse([{ text: 'Hi.' }], { input: 4000, output: 1000 })];
      const { h, agent } = await start();
      const turn = await agent.send('hi');
      assert.equal(round(turn.spentUsd), 0.003);
      await h.close();
    });

    it('fails the turn on 401 with the provider’s message and the key to check', async () => {
      const { h, agent } = await start('wrong-key');
      const turn = await agent.send('hi');
      assert.equal(
        turn.error,
        'Model "openai:gpt-5-mini" failed with HTTP 401: Incorrect API key provided: wrong-key. Check the API key (OPENAI_API_KEY).',
      );
      await h.close();
    });

    it('fails the turn on a lasting 429', async () => {
      replies = [0, 1, 2].map(() => openaiError(429, 'insufficient_quota', 'You exceeded your current quota.'));
      const { h, agent } = await start();
      const turn = await agent.send('hi');
      assert.match(
        turn.error!,
        /^Model "openai:gpt-5-mini" failed with HTTP 429: You exceeded your current quota\. The provider is limiting requests or the account is out of credit/,
      );
      assert.equal(api.requests.length, 3);
      await h.close();
    });

    it('fails the turn on a lasting 500', async () => {
      replies = [0, 1, 2].map(() => openaiError(500, 'server_error', 'The server had an error.'));
      const { h, agent } = await start();
      const turn = await agent.send('hi');
      assert.match(turn.error!, /HTTP 500: The server had an error\. The provider had an error: try again later\./);
      await h.close();
    });

    it('refuses to start an agent without a key, naming OPENAI_API_KEY', async () => {
      const h = await agentHarness(shopTools());
      assert.throws(
        () => h.wardrik.startAgent({ id: 'a', model: 'openai:gpt-5-mini', tools: [] }),
        /no API key: set OPENAI_API_KEY/,
      );
      await h.close();
    });
  });

  describe('when the provider cannot be reached', () => {
    it('fails the turn naming the address to check', async () => {
      const api = await fakeApi(() => ({ body: {} }));
      await api.close();
      const h = await agentHarness(shopTools(), {
        agents: { providers: { anthropic: { apiKey: 'k', baseURL: `${api.url}/v1` } }, modelRetry: { attempts: 1 } },
      });
      const turn = await h.wardrik.startAgent({ id: 'a', model: 'anthropic:claude-haiku-4-5', tools: [] }).send('hi');
      assert.equal(turn.status, 'failed');
      assert.match(
        turn.error!,
        new RegExp(`Could not reach ${api.url.replace(/\./g, '\\.')}/v1/messages: check the network and the base URL`),
      );
      await h.close();
    });
  });

  describe('the model registry', () => {
    it('resolves a provider registered by prefix', async () => {
      const h = await agentHarness(shopTools());
      const made: string[] = [];
      h.wardrik.models.register('local', (modelId) => {
        made.push(modelId);
        return scriptedModel([{ text: `I am ${modelId}.` }]);
      });
      const turn = await h.wardrik.startAgent({ id: 'a', model: 'local:tiny-1', tools: [] }).send('who?');
      assert.equal(turn.text, '[scripted] I am tiny-1.');
      assert.deepEqual(made, ['tiny-1']);
      await h.close();
    });

    it('runs a registered provider’s check when the agent starts', async () => {
      const h = await agentHarness(shopTools());
      h.wardrik.models.register('local', {
        create: () => scriptedModel([]),
        check: (id) => (id === 'big' ? 'too big for this machine; use local:tiny-1' : undefined),
      });
      assert.throws(
        () => h.wardrik.startAgent({ id: 'a', model: 'local:big', tools: [] }),
        /Model "local:big": too big for this machine; use local:tiny-1/,
      );
      await h.close();
    });

    it('fails the turn, not the process, when a provider returns something that is not a model', async () => {
      const h = await agentHarness(shopTools());
      h.wardrik.models.register('odd', () => ({ specificationVersion: 'v2' }) as never);
      const turn = await h.wardrik.startAgent({ id: 'a', model: 'odd:x', tools: [] }).send('hi');
      assert.equal(turn.status, 'failed');
      assert.match(
        turn.error!,
        /Model "odd:x" could not be loaded: .*specificationVersion "v2".*not a language model of AI SDK 7 or 6 \(specificationVersion "v4" or "v3"\)/,
      );
      await h.close();
    });
  });
});
