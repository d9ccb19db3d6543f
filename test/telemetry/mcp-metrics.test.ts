import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { metrics } from '@opentelemetry/api';
import { filter, firstValueFrom } from 'rxjs';
import { TestReader } from './test-reader.js';
import { MeterProvider, type DataPoint, type Histogram } from '@opentelemetry/sdk-metrics';
import { Wardrik } from '../../src/index.js';
import { FAST } from '../mcp/helpers.js';
import { modernClient, serving } from '../serve/helpers.js';

// This file runs in its own process, so the global meter provider is this test's alone.
const reader = new TestReader();
const provider = new MeterProvider({ readers: [reader] });

type Point = DataPoint<Histogram>;

async function points(name: string): Promise<Point[]> {
  const { resourceMetrics } = await reader.collect();
  const metric = resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics).find((m) => m.descriptor.name === name);
  assert.ok(metric, `no metric ${name}`);
  assert.equal(metric.descriptor.unit, 's');
  return metric.dataPoints as Point[];
}

/** How many operations the points whose attributes are exactly `attributes` counted. */
function count(list: Point[], attributes: Record<string, unknown>): number {
  const matching = list.filter((point) => {
    const keys = Object.keys(point.attributes);
    return (
      keys.length === Object.keys(attributes).length && keys.every((key) => point.attributes[key] === attributes[key])
    );
  });
  assert.ok(matching.length <= 1, 'one series per attribute set');
  return matching[0]?.value.count ?? 0;
}

const CALL = { 'mcp.method.name': 'tools/call', 'gen_ai.operation.name': 'execute_tool' };
const MODERN = '2026-07-28';

describe('MCP operation metrics (mcp.client/server.operation.duration)', () => {
  before(() => metrics.setGlobalMeterProvider(provider));
  after(async () => {
    await provider.shutdown();
    metrics.disable();
  });

  it('time each call a hub sends and a server answers, in both eras, exactly once each under concurrency', async () => {
    // Denied by its arguments, so the tool is listed (a caller is never listed a tool denied whatever they are).
    const s = await serving(
      {},
      {
        policy: {
          decide: ({ tool, arguments: args }) =>
            tool === 'orders/find_order' && String((args as { id?: unknown }).id).startsWith('o-deny')
              ? 'deny'
              : undefined,
        },
      },
    );
    const hub = await Wardrik.create({
      store: 'memory:',
      recoverMs: Infinity,
      mcp: { ...FAST, servers: { s: { transport: { http: { url: s.url } }, gated: false } } },
    });
    try {
      const port = Number(new URL(s.url).port);
      const call = (id: string, i: number) =>
        hub.runner.run({
          agent: 'a',
          run: `run-${i}`,
          call: { id: `c-${i}`, name: 's__orders__find_order', arguments: { id } },
        });
      const answers = await Promise.all([
        ...Array.from({ length: 8 }, (_, i) => call(`o-${i}`, i)),
        ...Array.from({ length: 3 }, (_, i) => call(`o-deny-${i}`, 10 + i)),
      ]);
      assert.deepEqual(
        answers.map((answer) => answer.status),
        [...Array(8).fill('ok'), ...Array(3).fill('error')],
      );
      // A 2025-11-25 session's calls, at once: two that run, one the runner refuses, one unknown tool.
      const legacy = await s.client();
      const legacyAnswers = await Promise.allSettled([
        legacy.callTool({ name: 'orders__find_order', arguments: { id: 'o-a' } }),
        legacy.callTool({ name: 'orders__find_order', arguments: { id: 'o-b' } }),
        legacy.callTool({ name: 'orders__find_order', arguments: { id: 'bad' } }),
        legacy.callTool({ name: 'orders__nothing', arguments: {} }),
      ]);
      assert.deepEqual(
        legacyAnswers.map((answer) => answer.status),
        ['fulfilled', 'fulfilled', 'fulfilled', 'rejected'],
      );

      const client = await points('mcp.client.operation.duration');
      const peer = {
        'wardrik.mcp.server': 's',
        'network.transport': 'tcp',
        'network.protocol.name': 'http',
        'server.address': '127.0.0.1',
        'server.port': port,
        'mcp.protocol.version': MODERN,
      };
      const found = { ...peer, ...CALL, 'gen_ai.tool.name': 'orders__find_order' };
      const denied = { ...found, 'error.type': 'tool_error' };
      assert.equal(count(client, found), 8);
      assert.equal(count(client, denied), 3);
      assert.ok(count(client, { ...peer, 'mcp.method.name': 'tools/list' }) >= 1, 'the listing is timed too');
      // Every request the hub sent has its answer: nothing left pending, nothing counted twice.
      const calls = client.filter((point) => point.attributes['mcp.method.name'] === 'tools/call');
      assert.equal(
        calls.reduce((total, point) => total + point.value.count, 0),
        11,
      );

      const server = await points('mcp.server.operation.duration');
      const http = { 'network.transport': 'tcp', 'network.protocol.name': 'http' };
      const modern = { ...http, 'mcp.protocol.version': MODERN, ...CALL };
      assert.equal(count(server, { ...modern, 'gen_ai.tool.name': 'orders__find_order' }), 8);
      assert.equal(
        count(server, { ...modern, 'gen_ai.tool.name': 'orders__find_order', 'error.type': 'tool_error' }),
        3,
      );
      const old = { ...http, 'mcp.protocol.version': '2025-11-25', ...CALL };
      assert.equal(count(server, { ...old, 'gen_ai.tool.name': 'orders__find_order' }), 2);
      assert.equal(count(server, { ...old, 'gen_ai.tool.name': 'orders__find_order', 'error.type': 'tool_error' }), 1);
      assert.equal(
        count(server, {
          ...old,
          'gen_ai.tool.name': 'orders__nothing',
          'error.type': '-32602',
          'rpc.response.status_code': '-32602',
        }),
        1,
      );
    } finally {
      await hub.close();
      await s.close();
    }
  });

  it('records a call the hub cancels as cancelled, and times a 2026-07-28 client’s listing on the server', async () => {
    const s = await serving();
    const hub = await Wardrik.create({
      store: 'memory:',
      recoverMs: Infinity,
      mcp: { ...FAST, servers: { s: { transport: { http: { url: s.url } }, gated: false } } },
    });
    try {
      const started = firstValueFrom(
        s.wardrik.events$.pipe(filter((event) => event.type === 'tool.called' && event.tool === 'orders/slow')),
      );
      const stop = new AbortController();
      const slow = hub.runner.run({
        agent: 'a',
        run: 'r',
        call: { id: 'slow', name: 's__orders__slow', arguments: { tag: 't' } },
        signal: stop.signal,
      });
      await started; // the call reached the server's tool
      stop.abort(new Error('stopped'));
      await slow.catch(() => undefined);
      const client = await points('mcp.client.operation.duration');
      const cancelled = client.filter(
        (point) =>
          point.attributes['gen_ai.tool.name'] === 'orders__slow' && point.attributes['error.type'] === 'cancelled',
      );
      assert.equal(
        cancelled.reduce((total, point) => total + point.value.count, 0),
        1,
      );

      const direct = await modernClient(s.url);
      await direct.listTools();
      const server = await points('mcp.server.operation.duration');
      const lists = server.filter(
        (point) =>
          point.attributes['mcp.method.name'] === 'tools/list' && point.attributes['mcp.protocol.version'] === MODERN,
      );
      assert.ok(lists.reduce((total, point) => total + point.value.count, 0) >= 2, 'the hub’s listing and this one');
      await direct.close();
    } finally {
      await hub.close();
      await s.close();
    }
  });
});
