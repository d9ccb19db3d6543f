import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SpanStatusCode, trace } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { MemoryStore, Wardrik } from '../../src/index.js';
import { scriptedModel } from '../../src/testing/index.js';
import { agentHarness, shopTools } from './helpers.js';

// This file runs in its own process, so the global tracer provider is this test's alone.
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

describe('OpenTelemetry spans (GenAI semantic conventions)', () => {
  before(() => trace.setGlobalTracerProvider(provider));
  after(async () => {
    await provider.shutdown();
    trace.disable();
  });

  async function turnSpans() {
    exporter.reset();
    const h = await agentHarness(shopTools());
    const model = scriptedModel([
      {
        toolCalls: [
          { name: 'shop__find_order', arguments: { id: 'ord_1' }, id: 'c1' },
          { name: 'shop__broken', id: 'c2' },
        ],
        usage: { inputTokens: 120, outputTokens: 30 },
      },
      { text: 'Done.', usage: { inputTokens: 200, outputTokens: 10 } },
    ]);
    const turn = await h.wardrik
      .startAgent({ id: 'support', model, tools: ['shop/*'], maxOutputTokens: 500 })
      .send('go');
    await h.close();
    const spans = exporter.getFinishedSpans();
    const byName = (name: string): ReadableSpan[] => spans.filter((span) => span.name === name);
    return { turn, spans, byName };
  }

  it('makes an invoke_agent span for the turn, with chat and execute_tool spans under it', async () => {
    const { spans, byName } = await turnSpans();
    const [root] = byName('invoke_agent support');
    assert.ok(root);
    assert.deepEqual(spans.map((span) => span.name).sort(), [
      'chat scripted-model',
      'chat scripted-model',
      'execute_tool shop__broken',
      'execute_tool shop__find_order',
      'invoke_agent support',
    ]);
    for (const span of spans) {
      if (span === root) continue;
      assert.equal(span.parentSpanContext?.spanId, root.spanContext().spanId, `${span.name} is a child of the turn`);
      assert.equal(span.spanContext().traceId, root.spanContext().traceId);
    }
  });

  it('traces a turn a new process takes up through recover(), with no send() there', async () => {
    exporter.reset();
    const store = new MemoryStore();
    const first = await Wardrik.create({ store, recoverMs: Infinity, tools: { shop: shopTools() } });
    const turn = await first
      .startAgent({
        id: 'a',
        model: scriptedModel([{ toolCalls: [{ name: 'shop__refund', arguments: { id: 'x' } }] }]),
        tools: ['shop/*'],
      })
      .send('go');
    await first.inbox.approve(turn.parked[0]!.inboxId);
    await first.close();
    exporter.reset();
    const second = await Wardrik.create({ store, recoverMs: Infinity, tools: { shop: shopTools() } });
    const agent = second.startAgent({ id: 'a', model: scriptedModel([{ text: 'Refunded.' }]), tools: ['shop/*'] });
    await second.agents.recover();
    assert.equal((await agent.result(turn.run)).status, 'done');
    await second.close();
    assert.deepEqual(
      exporter
        .getFinishedSpans()
        .map((span) => span.name)
        .sort(),
      ['chat scripted-model', 'invoke_agent a'],
    );
  });

  it('names the operation, agent, provider and model on the turn span', async () => {
    const { turn, byName } = await turnSpans();
    const attributes = byName('invoke_agent support')[0]!.attributes;
    assert.equal(attributes['gen_ai.operation.name'], 'invoke_agent');
    assert.equal(attributes['gen_ai.agent.name'], 'support');
    assert.equal(attributes['gen_ai.provider.name'], 'scripted');
    assert.equal(attributes['gen_ai.request.model'], 'scripted-model');
    assert.equal(attributes['wardrik.run'], turn.run);
    assert.equal(attributes['wardrik.turn.status'], 'done');
  });

  it('records each model call as a chat span with its usage and finish reason', async () => {
    const { byName } = await turnSpans();
    const [first, second] = byName('chat scripted-model');
    assert.equal(first!.kind, 2 /* CLIENT */);
    assert.equal(first!.attributes['gen_ai.operation.name'], 'chat');
    assert.equal(first!.attributes['gen_ai.request.model'], 'scripted-model');
    assert.equal(first!.attributes['gen_ai.request.max_tokens'], 500);
    assert.equal(first!.attributes['gen_ai.response.model'], 'scripted-model');
    assert.equal(first!.attributes['gen_ai.usage.input_tokens'], 120);
    assert.equal(first!.attributes['gen_ai.usage.output_tokens'], 30);
    assert.deepEqual(first!.attributes['gen_ai.response.finish_reasons'], ['tool-calls']);
    assert.deepEqual(second!.attributes['gen_ai.response.finish_reasons'], ['stop']);
  });

  it('records each tool call as an execute_tool span, failed ones with error.type', async () => {
    const { turn, byName } = await turnSpans();
    const ok = byName('execute_tool shop__find_order')[0]!;
    assert.equal(ok.attributes['gen_ai.operation.name'], 'execute_tool');
    assert.equal(ok.attributes['gen_ai.tool.name'], 'shop__find_order');
    assert.equal(ok.attributes['gen_ai.tool.call.id'], '0.c1');
    assert.equal(ok.attributes['gen_ai.tool.type'], 'function');
    assert.equal(ok.status.code, SpanStatusCode.UNSET);
    const failed = byName('execute_tool shop__broken')[0]!;
    assert.equal(failed.attributes['error.type'], 'failed');
    assert.equal(failed.status.code, SpanStatusCode.ERROR);
    assert.equal(turn.status, 'done');
  });

  it('marks the chat span failed when the model call fails', async () => {
    exporter.reset();
    const h = await agentHarness(shopTools());
    await h.wardrik.startAgent({ id: 'a', model: scriptedModel([{ error: 'down' }]), tools: [] }).send('go');
    await h.close();
    const chat = exporter.getFinishedSpans().find((span) => span.name === 'chat scripted-model')!;
    assert.equal(chat.status.code, SpanStatusCode.ERROR);
    assert.equal(chat.attributes['error.type'], 'Error');
  });
});
