import 'reflect-metadata';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { metrics } from '@opentelemetry/api';
import { TestReader } from './test-reader.js';
import { MeterProvider, type DataPoint, type Histogram } from '@opentelemetry/sdk-metrics';
import { defineTool, Wardrik } from '../../src/index.js';
import { GroupCommit } from '../../src/store/group-commit.js';
import { loadOtelApi } from '../../src/telemetry/otel-api.js';

// This file runs in its own process, so the global meter provider is this test's alone.
const reader = new TestReader();
const provider = new MeterProvider({ readers: [reader] });

/** Commits counted by `wardrik.journal.commit.duration`, by `store/outcome`. */
async function commits(): Promise<Map<string, number>> {
  const { resourceMetrics } = await reader.collect();
  const metric = resourceMetrics.scopeMetrics
    .flatMap((scope) => scope.metrics)
    .find((m) => m.descriptor.name === 'wardrik.journal.commit.duration');
  const counts = new Map<string, number>();
  for (const point of (metric?.dataPoints ?? []) as DataPoint<Histogram>[]) {
    assert.deepEqual(Object.keys(point.attributes).sort(), ['wardrik.outcome', 'wardrik.store']);
    counts.set(
      `${String(point.attributes['wardrik.store'])}/${String(point.attributes['wardrik.outcome'])}`,
      point.value.count,
    );
  }
  return counts;
}

describe('The journal commit latency metric (wardrik.journal.commit.duration)', () => {
  before(async () => {
    metrics.setGlobalMeterProvider(provider);
    await loadOtelApi(); // as Wardrik.create does when the app registered a MeterProvider
  });
  after(async () => {
    await provider.shutdown();
    metrics.disable();
  });

  it('counts each shared commit once, however many batches it carries, and a commit that fails as failed', async () => {
    let fail = false;
    const group = new GroupCommit<number, boolean>(
      (batches) => {
        if (fail) throw new Error('disk full');
        return batches.map((batch) => ({ results: batch.map(() => true) }));
      },
      1,
      undefined,
      'postgres',
    );
    // Ten batches handed in together share one commit.
    await Promise.all(Array.from({ length: 10 }, (_, i) => group.add([i])));
    await group.add([10]);
    fail = true;
    await assert.rejects(group.add([11]), /disk full/);
    assert.deepEqual(
      await commits(),
      new Map([
        ['postgres/ok', 2],
        ['postgres/failed', 1],
      ]),
    );
  });

  it("times a SQLite store's commits while runs write at once", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wardrik-journal-metrics-'));
    const wardrik = await Wardrik.create({
      store: `sqlite:${join(dir, 'w.db')}`,
      recoverMs: Infinity,
      tools: { t: [defineTool({ name: 'read', description: 'Reads.', readOnly: true, run: () => 'ok' })] },
    });
    try {
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          wardrik.runner.run({ agent: 'a', run: `run-${i}`, call: { id: `c-${i}`, name: 't__read', arguments: {} } }),
        ),
      );
      assert.ok(answers.every((answer) => answer.status === 'ok'));
      const counted = (await commits()).get('sqlite/ok') ?? 0;
      // Each call writes to the journal at least twice (called, then its answer); runs at once share commits.
      assert.ok(counted >= 1 && counted < 40, `${counted} commits for 20 calls at once`);
    } finally {
      await wardrik.close();
    }
  });
});
