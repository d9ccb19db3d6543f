import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { context, createTraceState, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { Wardrik } from '../../src/index.js';
import { scriptedModel } from '../../src/testing/index.js';
import { startModernHttp } from './fixtures/modern-http.js';
import { FAST } from './helpers.js';
import { StorageContextManager } from './storage-context.js';

// This file runs in its own process, so the global tracer provider and context manager are this test's alone.
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

describe('A trace across the MCP hop', () => {
  before(() => {
    trace.setGlobalTracerProvider(provider);
    context.setGlobalContextManager(new StorageContextManager());
  });
  after(async () => {
    await provider.shutdown();
    trace.disable();
    context.disable();
  });

  it("carries an agent's execute_tool span to the MCP server as the request's traceparent", async () => {
    const fixture = await startModernHttp();
    const wardrik = await Wardrik.create({
      store: 'memory:',
      recoverMs: Infinity,
      mcp: { ...FAST, servers: { m: { transport: { http: { url: fixture.url } }, gated: false } } },
    });
    try {
      const model = scriptedModel([{ toolCalls: [{ name: 'm__trace', id: 't1' }] }, { text: 'done' }]);
      await wardrik.startAgent({ id: 'tracer', model, tools: ['m/*'] }).send('go');
      const [span] = exporter.getFinishedSpans().filter((s) => s.name === 'execute_tool m__trace');
      assert.ok(span, 'the tool call has its span');
      const { traceId, spanId } = span.spanContext();
      assert.deepEqual(fixture.state.traceparents, [`00-${traceId}-${spanId}-01`]);
      assert.deepEqual(fixture.state.tracestates, [], 'no tracestate when the trace has none');

      // A turn under the app's own span (an incoming request's, with a vendor's tracestate) keeps both.
      const incoming = trace.setSpanContext(ROOT_CONTEXT, {
        traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
        spanId: '00f067aa0ba902b7',
        traceFlags: 1,
        isRemote: true,
        traceState: createTraceState('vendor=1'),
      });
      const again = scriptedModel([{ toolCalls: [{ name: 'm__trace', id: 't2' }] }, { text: 'done' }]);
      await context.with(incoming, () =>
        wardrik.startAgent({ id: 'tracer2', model: again, tools: ['m/*'] }).send('go'),
      );
      assert.equal(fixture.state.traceparents[1]?.split('-')[1], '4bf92f3577b34da6a3ce929d0e0e4736');
      assert.deepEqual(fixture.state.tracestates, ['vendor=1']);
    } finally {
      await wardrik.close();
      await fixture.close();
    }
  });
});
