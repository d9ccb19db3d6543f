import 'reflect-metadata';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startWithMetrics } from '../../examples/metrics/prometheus.js';

const DASHBOARD = fileURLToPath(new URL('../../../examples/metrics/grafana-dashboard.json', import.meta.url));

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The scrape as series: name, labels, value. */
function parse(text: string): { name: string; labels: Record<string, string>; value: number }[] {
  return text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      assert.ok(match, `not a sample line: ${line}`);
      const labels: Record<string, string> = {};
      for (const [, key, value] of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[key!] = value!;
      return { name: match[1]!, labels, value: Number(match[3]) };
    });
}

describe('Metrics on a Prometheus endpoint (examples/metrics), and the Grafana dashboard on them', () => {
  it('serves every series with its labels after a workload, and every series the dashboard reads', async () => {
    const port = await freePort();
    const app = await startWithMetrics(port);
    try {
      await app.workload();
      const response = await fetch(`http://127.0.0.1:${port}/metrics`);
      assert.equal(response.status, 200);
      const series = parse(await response.text());
      const value = (name: string, labels: Record<string, string>) =>
        series
          .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
          .reduce((total, s) => total + s.value, 0);
      const calls = (tool: string, outcome: string) =>
        value('wardrik_tool_calls_total', { gen_ai_tool_name: `orders/${tool}`, wardrik_outcome: outcome });
      assert.equal(calls('find_order', 'ok'), 3 + 1, 'three runs, and the agent once');
      assert.equal(calls('carrier_status', 'failed'), 3);
      assert.equal(calls('delete_order', 'denied'), 3);
      assert.equal(calls('refund_order', 'parked'), 3);
      assert.equal(calls('refund_order', 'ok'), 1, 'the one a person approved');
      assert.equal(value('wardrik_inbox_waiting', { wardrik_inbox_kind: 'approval' }), 2);
      assert.equal(value('wardrik_inbox_answer_duration_count', { wardrik_answer: 'approved' }), 1);
      assert.equal(value('gen_ai_client_token_usage_sum', { gen_ai_token_type: 'input' }), 2 * 1_200);
      assert.equal(value('gen_ai_client_operation_duration_count', { gen_ai_operation_name: 'chat' }), 2);
      assert.equal(value('wardrik_budget_limit', { gen_ai_agent_name: 'support' }), 5);
      assert.ok(value('wardrik_budget_spent', { gen_ai_agent_name: 'support' }) > 0);
      assert.ok(value('wardrik_recovery_passes_total', { wardrik_outcome: 'ok' }) >= 2);
      // Every metric and label the dashboard's queries name is one the endpoint serves.
      const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { panels: { targets: { expr: string }[] }[] };
      const exprs = dashboard.panels.flatMap((panel) => panel.targets.map((target) => target.expr));
      assert.ok(exprs.length >= 10);
      const names = new Set(series.map((s) => s.name));
      const labels = new Set(series.flatMap((s) => Object.keys(s.labels)));
      for (const expr of exprs) {
        const selectors = [...expr.matchAll(/\{([^}]*)\}/g)].flatMap(([, body]) =>
          [...body!.matchAll(/(\w+)=/g)].map(([, key]) => key!),
        );
        const grouped = [...expr.matchAll(/by \(([^)]*)\)/g)].flatMap(([, list]) =>
          list!.split(',').map((l) => l.trim()),
        );
        for (const label of [...selectors, ...grouped])
          assert.ok(label === 'le' || labels.has(label), `label ${label} (in ${expr}) is not served`);
        const bare = expr.replace(/by \([^)]*\)/g, '').replace(/\{[^}]*\}/g, '');
        for (const [metric] of bare.matchAll(/\b(?:wardrik|gen_ai)_\w+/g))
          assert.ok(names.has(metric), `${metric} (in ${expr}) is not served`);
      }
    } finally {
      await app.close();
    }
  });
});
