// docs/operating.md: Wardrik's metrics on a Prometheus endpoint, as an app exports them, with a workload
// that makes every series: calls that run, fail, are denied and wait for a person, a person's answers,
// an agent's model calls against its budget, and a recovery pass.
//   node dist/examples/metrics/prometheus.js   then open http://127.0.0.1:9464/metrics
// The Grafana dashboard beside this file (grafana-dashboard.json) reads these series.
import 'reflect-metadata';
import { metrics } from '@opentelemetry/api';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { fileURLToPath } from 'node:url';
import { defineTool, Wardrik } from '../../src/index.js';
import { scriptedModel } from '../../src/testing/index.js';

/** Registers the exporter's MeterProvider (before Wardrik.create, so Wardrik sees it) and starts a Wardrik. */
export async function startWithMetrics(port: number) {
  const exporter = new PrometheusExporter({ host: '127.0.0.1', port });
  const provider = new MeterProvider({ readers: [exporter] });
  metrics.setGlobalMeterProvider(provider);
  const wardrik = await Wardrik.create({
    store: 'memory:',
    tools: {
      orders: [
        defineTool({
          name: 'find_order',
          description: 'Finds an order.',
          annotations: { readOnly: true },
          run: () => 'ord_1',
        }),
        defineTool({ name: 'refund_order', description: 'Refunds an order.', run: () => 'refunded' }),
        defineTool({ name: 'delete_order', description: 'Deletes an order.', run: () => 'deleted' }),
        defineTool({
          name: 'carrier_status',
          description: 'Asks the carrier.',
          annotations: { readOnly: true },
          run: () => {
            throw new Error('the carrier is down');
          },
        }),
      ],
    },
    policy: { rules: [{ match: 'orders/delete_*', action: 'deny' }] },
  });
  return {
    wardrik,
    /** A few minutes of an order desk, in a moment. */
    async workload(): Promise<void> {
      const call = (tool: string, run: string) =>
        wardrik.runner.run({ agent: 'desk', run, call: { id: tool, name: `orders__${tool}`, arguments: {} } });
      await Promise.all(
        ['r1', 'r2', 'r3'].flatMap((run) =>
          ['find_order', 'refund_order', 'delete_order', 'carrier_status'].map((t) => call(t, run)),
        ),
      );
      const [first] = await wardrik.inbox.list();
      if (first !== undefined) await wardrik.inbox.approve(first.id, { by: 'dana@example.com' });
      const model = scriptedModel([{ toolCalls: [{ name: 'orders__find_order' }] }, { text: 'Found it.' }], {
        usage: { inputTokens: 1_200, outputTokens: 80 },
      });
      await wardrik
        .startAgent({
          id: 'support',
          model,
          tools: ['orders/*'],
          budgetUsd: 5,
          price: { inputPerMTok: 1, outputPerMTok: 5 },
        })
        .send('Where is my order?');
      await wardrik.recover();
    },
    async close(): Promise<void> {
      await wardrik.close();
      await provider.shutdown();
    },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const app = await startWithMetrics(Number(process.env.PORT ?? 9464));
  await app.workload();
  console.log(`Metrics at http://127.0.0.1:${process.env.PORT ?? 9464}/metrics; Ctrl-C stops.`);
  // The exporter's server does not keep the process alive by itself.
  const alive = setInterval(() => undefined, 60_000);
  process.once('SIGINT', () => {
    clearInterval(alive);
    void app.close();
  });
}
