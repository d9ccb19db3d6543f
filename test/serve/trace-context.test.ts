import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SpanKind, trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { modernClient, serving } from './helpers.js';

// This file runs in its own process, so the global tracer provider is this test's alone.
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = '00f067aa0ba902b7';

describe('a served call continues the trace of the request that made it (traceparent in _meta)', () => {
  before(() => trace.setGlobalTracerProvider(provider));
  after(async () => {
    await provider.shutdown();
    trace.disable();
  });

  it("makes the call's span a child of the caller's, from 2026-07-28 and 2025-11-25 clients alike", async () => {
    const s = await serving();
    try {
      const modern = await modernClient(s.url);
      const legacy = await s.client();
      const meta = { traceparent: `00-${TRACE}-${PARENT}-01`, tracestate: 'vendor=1' };
      exporter.reset();
      await modern.call('orders__find_order', { id: 'o-1' }, { _meta: meta });
      await legacy.callTool({ name: 'orders__find_order', arguments: { id: 'o-2' }, _meta: meta });
      // No trace context, or a malformed one: the call starts a trace of its own.
      await modern.call(
        'orders__find_order',
        { id: 'o-3' },
        { _meta: { traceparent: `00-${'0'.repeat(32)}-${PARENT}-01` } },
      );
      const spans = exporter.getFinishedSpans().filter((span) => span.name === 'execute_tool orders__find_order');
      assert.equal(spans.length, 3);
      for (const span of spans.slice(0, 2)) {
        assert.equal(span.spanContext().traceId, TRACE);
        assert.equal(span.parentSpanContext?.spanId, PARENT);
        assert.equal(span.parentSpanContext?.isRemote, true);
        assert.equal(span.kind, SpanKind.SERVER);
        assert.equal(span.attributes['gen_ai.tool.name'], 'orders__find_order');
      }
      assert.equal(spans[0]!.spanContext().traceState?.get('vendor'), '1');
      assert.notEqual(spans[2]!.spanContext().traceId, TRACE);
      assert.equal(spans[2]!.parentSpanContext, undefined);
      await modern.close();
    } finally {
      await s.close();
    }
  });
});
