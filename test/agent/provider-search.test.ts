import 'reflect-metadata';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ConfigurationError, defineTool, Wardrik, type ToolDefinition, type WardrikOptions } from '../../src/index.js';
import { scriptedModel } from '../../src/testing/index.js';
import { githubTools } from '../github-tools.js';
import { anthropicError, fakeApi, openaiError, type FakeReply, type FakeRequest } from './fake-providers.js';

// This file runs in its own process: the keys and base URLs below are this test's alone.
for (const name of ['ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL', 'OPENAI_API_KEY', 'OPENAI_BASE_URL'])
  delete process.env[name];

/** An order desk (sent), and GitHub's tools (deferred). */
function catalog(opened: string[], deleted?: { count: number }): Record<string, ToolDefinition[]> {
  return {
    shop: [
      defineTool({
        name: 'find_order',
        description: 'Finds an order.',
        annotations: { readOnly: true },
        run: () => 'o1',
      }),
    ],
    gh: githubTools(opened, deleted),
  };
}

type Block = Record<string, unknown>;

/** A Messages API answer with the given content blocks. */
function message(content: Block[]): FakeReply {
  return {
    body: {
      id: `msg_${Math.random().toString(36).slice(2)}`,
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content,
      stop_reason: content.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 100, output_tokens: 20, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    },
  };
}

/** The provider's own search, as Anthropic answers it: the server tool's call and the tools it loaded. */
function search(id: string, query: string, loaded: string[]): Block[] {
  return [
    { type: 'server_tool_use', id, name: 'tool_search_tool_bm25', input: { query } },
    {
      type: 'tool_search_tool_result',
      tool_use_id: id,
      content: {
        type: 'tool_search_tool_search_result',
        tool_references: loaded.map((name) => ({ type: 'tool_reference', tool_name: name })),
      },
    },
  ];
}

const toolUse = (id: string, name: string, input: unknown): Block => ({ type: 'tool_use', id, name, input });

/** The blocks of the request's messages, flattened, with the message's role. */
function blocks(request: FakeRequest): (Block & { role: string })[] {
  return (request.body.messages as { role: string; content: Block[] | string }[]).flatMap((m) =>
    typeof m.content === 'string' ? [] : m.content.map((block) => ({ ...block, role: m.role })),
  );
}

function resultOf(request: FakeRequest, id: string): string {
  const block = blocks(request).find((b) => b.type === 'tool_result' && b.tool_use_id === id);
  assert.ok(block, `the request holds the result of ${id}`);
  return JSON.stringify(block.content);
}

describe("Deferred tools searched by the provider's own tool search (toolSearch: 'provider')", () => {
  let replies: FakeReply[] = [];
  let api: Awaited<ReturnType<typeof fakeApi>>;
  before(async () => {
    api = await fakeApi(() => replies.shift() ?? anthropicError(500, 'api_error', 'no reply scripted'));
  });
  after(() => api.close());

  const options = (opened: string[], store = 'memory:', ask = false): WardrikOptions => ({
    store,
    recoverMs: Infinity,
    tools: catalog(opened),
    agents: { providers: { anthropic: { apiKey: 'test-key', baseURL: `${api.url}/v1` } } },
    policy: {
      rules: [
        { match: 'gh/delete_*', action: 'deny' },
        { match: 'gh/create_issue', action: ask ? 'ask' : 'allow' },
        { match: 'gh/report_*', action: 'allow' },
      ],
    },
  });
  const agentOptions = {
    id: 'a',
    model: 'anthropic:claude-sonnet-4-5',
    tools: ['shop/*'],
    deferred: ['gh/*'],
    toolSearch: 'provider' as const,
  };

  it('sends the deferred tools marked for deferred loading with the search tool; runs only what a search loaded', async () => {
    const opened: string[] = [];
    api.requests.length = 0;
    replies = [
      message([
        ...search('srvtoolu_1', 'open an issue', ['gh__create_issue']),
        toolUse('toolu_1', 'gh__create_issue', { title: 'Checkout broken' }),
        // Deferred, allowed by the policy, but no search loaded it: refused, unrun.
        toolUse('toolu_2', 'gh__report_3', {}),
      ]),
      message([{ type: 'text', text: 'Opened issue #7.' }]),
      // The next turn: what the first turn's search loaded is still loaded (its result is in the prompt).
      message([toolUse('toolu_3', 'gh__create_issue', { title: 'Second' })]),
      message([{ type: 'text', text: 'Opened another.' }]),
    ];
    const wardrik = await Wardrik.create(options(opened));
    const agent = wardrik.startAgent(agentOptions);
    const turn = await agent.send('Open an issue: checkout is broken.');
    assert.equal(turn.status, 'done', turn.error);
    assert.equal(turn.text, 'Opened issue #7.');
    assert.deepEqual(opened, ['Checkout broken']);

    const [first, second] = api.requests;
    const tools = first!.body.tools as Block[];
    const named = (name: string) => tools.find((tool) => tool.name === name);
    assert.equal(named('shop__find_order')?.defer_loading, undefined, "the agent's own tools are sent as ever");
    assert.equal(named('gh__create_issue')?.defer_loading, true);
    assert.equal(named('gh__report_3')?.defer_loading, true);
    assert.equal(named('gh__delete_repository'), undefined, 'a tool the policy denies is never offered');
    assert.equal(named('tool_search_tool_bm25')?.type, 'tool_search_tool_bm25_20251119');
    assert.equal(named('wardrik__search_tools'), undefined);

    // The search's call and result go back to the provider with the step, which keeps its tools loaded.
    const echoed = blocks(second!).filter((b) => b.role === 'assistant');
    assert.deepEqual(
      echoed.map((b) => b.type),
      ['server_tool_use', 'tool_search_tool_result', 'tool_use', 'tool_use'],
    );
    assert.deepEqual(echoed[1]!.content, {
      type: 'tool_search_tool_search_result',
      tool_references: [{ type: 'tool_reference', tool_name: 'gh__create_issue' }],
    });
    assert.match(resultOf(second!, 'toolu_1'), /issue #7/);
    assert.match(resultOf(second!, 'toolu_2'), /not loaded yet; it did not run/);

    const next = await agent.send('And another one.');
    assert.equal(next.status, 'done', next.error);
    assert.deepEqual(opened, ['Checkout broken', 'Second']);
    const third = api.requests[2]!;
    assert.ok(
      blocks(third).some((b) => b.type === 'tool_search_tool_result' && b.role === 'assistant'),
      "the earlier turn's search is in the prompt",
    );
    await wardrik.close();
  });

  it('never runs a tool the policy denies, even when the provider says a search loaded it', async () => {
    const opened: string[] = [];
    const deleted = { count: 0 };
    const tools = catalog(opened, deleted);
    replies = [
      message([
        ...search('srvtoolu_9', 'delete', ['gh__delete_repository']),
        toolUse('toolu_9', 'gh__delete_repository', {}),
      ]),
      message([{ type: 'text', text: 'Could not.' }]),
    ];
    api.requests.length = 0;
    const wardrik = await Wardrik.create({ ...options(opened), tools });
    const turn = await wardrik.startAgent(agentOptions).send('Delete the repository.');
    assert.equal(turn.status, 'done', turn.error);
    assert.equal(deleted.count, 0);
    assert.match(resultOf(api.requests[1]!, 'toolu_9'), /did not run/);
    await wardrik.close();
  });

  it('resumes a parked turn on another node with the same tools loaded, from the journal', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wardrik-provider-search-'));
    try {
      const store = `sqlite:${join(dir, 'w.db')}`;
      const opened: string[] = [];
      replies = [
        message([
          ...search('srvtoolu_5', 'issue', ['gh__create_issue']),
          toolUse('toolu_5', 'gh__create_issue', { title: 'Needs a person' }),
        ]),
      ];
      api.requests.length = 0;
      const first = await Wardrik.create(options(opened, store, true));
      const turn = await first.startAgent(agentOptions).send('Open an issue.');
      assert.equal(turn.status, 'parked');
      const [item] = await first.inbox.list();
      await first.close();

      replies = [message([{ type: 'text', text: 'Done after approval.' }])];
      const second = await Wardrik.create(options(opened, store, true));
      const agent = second.startAgent(agentOptions);
      const resumed = agent.result(turn.run);
      await second.inbox.approve(item!.id, { by: 'dana' });
      await second.recover();
      const done = await resumed;
      assert.equal(done.status, 'done', done.error);
      assert.deepEqual(opened, ['Needs a person']);
      const after = api.requests[1]!;
      assert.ok(blocks(after).some((b) => b.type === 'server_tool_use' && b.role === 'assistant'));
      assert.match(resultOf(after, 'toolu_5'), /issue #7/);
      await second.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is refused at start-up without deferred tools, for a provider without tool search, or misspelt', async () => {
    const wardrik = await Wardrik.create(options([]));
    assert.throws(
      () => wardrik.startAgent({ ...agentOptions, id: 'b', deferred: [] }),
      (error: unknown) => error instanceof ConfigurationError && /has none: add deferred/.test(error.message),
    );
    assert.throws(
      () => wardrik.startAgent({ ...agentOptions, id: 'c', model: scriptedModel([]) }),
      (error: unknown) =>
        error instanceof ConfigurationError && /needs a model whose provider searches tools itself/.test(error.message),
    );
    assert.throws(
      () => wardrik.startAgent({ ...agentOptions, id: 'd', toolSearch: 'anthropic' as never }),
      (error: unknown) =>
        error instanceof ConfigurationError && /toolSearch is "wardrik".*or "provider"/.test(error.message),
    );
    await wardrik.close();
  });
});

/** A Responses API answer with the given output items. */
function response(output: Block[]): FakeReply {
  return {
    body: {
      id: `resp_${Math.random().toString(36).slice(2)}`,
      object: 'response',
      created_at: 1_767_225_600,
      model: 'gpt-5-mini-2025-08-07',
      status: 'completed',
      incomplete_details: null,
      output,
      usage: {
        input_tokens: 100,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: 20,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: 120,
      },
    },
  };
}

describe("The provider's tool search on OpenAI's Responses API", () => {
  it('sends deferred tools with defer_loading and the hosted tool_search; runs what it loaded, refuses the rest', async () => {
    const replies: FakeReply[] = [];
    const api = await fakeApi(() => replies.shift() ?? openaiError(500, 'server_error', 'no reply scripted'));
    try {
      const opened: string[] = [];
      const loadedTool = { type: 'function', name: 'gh__create_issue', description: 'Opens an issue.', parameters: {} };
      replies.push(
        response([
          {
            type: 'tool_search_call',
            id: 'ts_1',
            execution: 'server',
            call_id: null,
            status: 'completed',
            arguments: { query: 'issue' },
          },
          {
            type: 'tool_search_output',
            id: 'tso_1',
            execution: 'server',
            call_id: null,
            status: 'completed',
            tools: [loadedTool],
          },
          {
            type: 'function_call',
            id: 'fc_1',
            call_id: 'call_1',
            name: 'gh__create_issue',
            arguments: '{"title":"From OpenAI"}',
            status: 'completed',
          },
          {
            type: 'function_call',
            id: 'fc_2',
            call_id: 'call_2',
            name: 'gh__report_1',
            arguments: '{}',
            status: 'completed',
          },
        ]),
        response([
          {
            type: 'message',
            id: 'msg_1',
            role: 'assistant',
            status: 'completed',
            content: [{ type: 'output_text', text: 'Opened.', annotations: [] }],
          },
        ]),
      );
      const wardrik = await Wardrik.create({
        store: 'memory:',
        recoverMs: Infinity,
        tools: catalog(opened),
        agents: { providers: { openai: { apiKey: 'test-key', baseURL: `${api.url}/v1` } } },
        policy: { rules: [{ match: 'gh/*', action: 'allow' }] },
      });
      const agent = wardrik.startAgent({
        id: 'o',
        model: 'openai:gpt-5-mini',
        tools: ['shop/*'],
        deferred: ['gh/*'],
        toolSearch: 'provider',
      });
      const turn = await agent.send('Open an issue.');
      assert.equal(turn.status, 'done', turn.error);
      assert.deepEqual(opened, ['From OpenAI']);
      const [first, second] = api.requests;
      const tools = first!.body.tools as Block[];
      assert.equal(tools.find((tool) => tool.name === 'gh__create_issue')?.defer_loading, true);
      assert.equal(tools.find((tool) => tool.name === 'shop__find_order')?.defer_loading, undefined);
      assert.deepEqual(
        tools.find((tool) => tool.type === 'tool_search'),
        { type: 'tool_search', execution: 'server' },
      );
      // The search goes back by reference to the items the provider stored, with the calls' outputs.
      const input = second!.body.input as Block[];
      assert.ok(
        input.some((item) => item.type === 'item_reference' && item.id === 'ts_1'),
        JSON.stringify(input),
      );
      assert.ok(
        input.some((item) => item.type === 'item_reference' && item.id === 'tso_1'),
        JSON.stringify(input),
      );
      const outputOf = (id: string) =>
        input.find((item) => item.type === 'function_call_output' && item.call_id === id);
      assert.match(String(outputOf('call_1')?.output), /issue #7/);
      assert.match(String(outputOf('call_2')?.output), /not loaded yet; it did not run/);
      await wardrik.close();
    } finally {
      await api.close();
    }
  });
});
