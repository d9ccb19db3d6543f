import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { metrics } from '@opentelemetry/api';
import { TestReader } from './test-reader.js';
import { MeterProvider, type DataPoint, type MetricData } from '@opentelemetry/sdk-metrics';
import { defineTool, Wardrik } from '../../src/index.js';
import { scriptedModel } from '../../src/testing/index.js';
import { registeredMeterProvider } from '../../src/telemetry/metrics.js';

// This file runs in its own process, so the global meter provider is this test's alone.
const reader = new TestReader();
const provider = new MeterProvider({ readers: [reader] });

async function collected(): Promise<Map<string, MetricData>> {
  const { resourceMetrics } = await reader.collect();
  return new Map(resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics).map((m) => [m.descriptor.name, m]));
}

/** The data points of `name` whose attributes include `where`. */
function points(all: Map<string, MetricData>, name: string, where: Record<string, string> = {}): DataPoint<unknown>[] {
  const metric = all.get(name);
  assert.ok(metric, `no metric ${name}; there are ${[...all.keys()].join(', ')}`);
  return (metric.dataPoints as DataPoint<unknown>[]).filter((point) =>
    Object.entries(where).every(([key, value]) => point.attributes[key] === value),
  );
}

const sum = (list: DataPoint<unknown>[]): number =>
  list.reduce(
    (total, point) =>
      total + (typeof point.value === 'number' ? point.value : (point.value as { count: number }).count),
    0,
  );

const tools = [
  defineTool({ name: 'read', description: 'Reads.', annotations: { readOnly: true }, run: () => 'ok' }),
  defineTool({
    name: 'broken',
    description: 'Fails.',
    annotations: { readOnly: true },
    run: () => {
      throw new Error('down');
    },
  }),
  defineTool({ name: 'refund', description: 'Refunds.', run: () => 'refunded' }),
  defineTool({ name: 'wipe', description: 'Wipes.', run: () => 'wiped' }),
];

describe('OpenTelemetry metrics', () => {
  before(() => {
    assert.equal(registeredMeterProvider(), false, 'no provider before the app registers one');
    metrics.setGlobalMeterProvider(provider);
  });
  after(async () => {
    await provider.shutdown();
    metrics.disable();
  });

  it('counts tool calls by outcome and times them, with calls running at once', async () => {
    assert.equal(registeredMeterProvider(), true);
    const wardrik = await Wardrik.create({
      store: 'memory:',
      recoverMs: Infinity,
      tools: { t: tools },
      policy: { rules: [{ match: 't/wipe', action: 'deny' }] },
    });
    const call = (name: string, i: number) =>
      wardrik.runner.run({ agent: 'a', run: `run-${i}`, call: { id: `c-${name}`, name: `t__${name}`, arguments: {} } });
    await Promise.all(
      Array.from({ length: 10 }, (_, i) => [
        call('read', i),
        call('broken', i),
        call('refund', i),
        call('wipe', i),
      ]).flat(),
    );
    const all = await collected();
    const outcome = (tool: string, value: string) =>
      sum(points(all, 'wardrik.tool.calls', { 'gen_ai.tool.name': tool, 'wardrik.outcome': value }));
    assert.equal(outcome('t/read', 'ok'), 10);
    assert.equal(outcome('t/broken', 'failed'), 10);
    assert.equal(outcome('t/refund', 'parked'), 10);
    assert.equal(outcome('t/wipe', 'denied'), 10);
    assert.equal(sum(points(all, 'wardrik.tool.duration', { 'gen_ai.tool.name': 't/read' })), 10);
    assert.equal(all.get('wardrik.tool.duration')?.descriptor.unit, 's');
    // The ten refunds wait for a person, in the store every node shares.
    assert.deepEqual(
      points(all, 'wardrik.inbox.waiting', { 'wardrik.inbox.kind': 'approval' }).map((p) => p.value),
      [10],
    );
    const [oldest] = points(all, 'wardrik.inbox.oldest_age');
    assert.ok(typeof oldest?.value === 'number' && oldest.value >= 0);
    // A person answers five; the answer time is recorded, and five still wait.
    const items = await wardrik.inbox.list();
    await Promise.all(items.slice(0, 5).map((item) => wardrik.inbox.approve(item.id, { by: 'dana' })));
    const later = await collected();
    assert.equal(sum(points(later, 'wardrik.inbox.answer.duration', { 'wardrik.answer': 'approved' })), 5);
    assert.equal(
      sum(points(later, 'wardrik.tool.calls', { 'gen_ai.tool.name': 't/refund', 'wardrik.outcome': 'ok' })),
      5,
    );
    assert.deepEqual(
      points(later, 'wardrik.inbox.waiting', { 'wardrik.inbox.kind': 'approval' }).map((p) => p.value),
      [5],
    );
    // A recovery pass is counted, and its lag is read from then.
    await wardrik.recover();
    const recovered = await collected();
    assert.equal(sum(points(recovered, 'wardrik.recovery.passes', { 'wardrik.outcome': 'ok' })) >= 2, true);
    assert.equal(points(recovered, 'wardrik.recovery.lag').length, 1);
    await wardrik.close();
  });

  it('records model calls by the GenAI conventions, and each agent’s spend against its budget', async () => {
    const wardrik = await Wardrik.create({ store: 'memory:', recoverMs: Infinity, tools: { t: tools } });
    const model = scriptedModel([
      { toolCalls: [{ name: 't__read' }], usage: { inputTokens: 1_000_000, outputTokens: 10 } },
      { text: 'Done.', usage: { inputTokens: 200, outputTokens: 500_000 } },
    ]);
    const agent = wardrik.startAgent({
      id: 'desk',
      model,
      tools: ['t/*'],
      budgetUsd: 50,
      price: { inputPerMTok: 1, outputPerMTok: 4 },
    });
    assert.equal((await agent.send('go')).status, 'done');
    const all = await collected();
    const tokens = (type: string) =>
      points(all, 'gen_ai.client.token.usage', { 'gen_ai.token.type': type }).map(
        (p) => (p.value as { sum: number; count: number }).sum,
      );
    assert.deepEqual(tokens('input'), [1_000_200]);
    assert.deepEqual(tokens('output'), [500_010]);
    const [duration] = points(all, 'gen_ai.client.operation.duration', { 'gen_ai.operation.name': 'chat' });
    assert.equal((duration?.value as { count: number }).count, 2);
    assert.equal(typeof duration?.attributes['gen_ai.request.model'], 'string');
    // $1.0002 for the input, $2.00004 for the output: the total the store keeps, and the budget.
    const [spent] = points(all, 'wardrik.budget.spent', { 'gen_ai.agent.name': 'desk' });
    assert.ok(typeof spent?.value === 'number' && Math.abs(spent.value - 3.00024) < 1e-6, String(spent?.value));
    assert.deepEqual(
      points(all, 'wardrik.budget.limit', { 'gen_ai.agent.name': 'desk' }).map((p) => p.value),
      [50],
    );
    await wardrik.close();
  });
});
