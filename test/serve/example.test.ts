import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';

const EXAMPLE = fileURLToPath(new URL('../../examples/serve/approval-while-waiting.js', import.meta.url));

describe('examples/serve/approval-while-waiting', () => {
  it('holds the client while a person approves, then gives it the refund', () => {
    const run = spawnSync(process.execPath, [EXAMPLE], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    const lines = run.stdout.trim().split('\n');
    assert.match(lines[0]!, /^client: still waiting \(Waiting for a person \(inbox item [0-9a-f-]+\)/);
    const approving = lines.findIndex((line) =>
      line.startsWith('person: approving orders/refund_order {"orderId":"ord_1001"} for mcp'),
    );
    assert.ok(approving > 0, run.stdout);
    assert.equal(
      lines.at(-1),
      'client: result [{"type":"text","text":"{\\"orderId\\":\\"ord_1001\\",\\"amountCents\\":4999}"}]',
    );
  });
});

const MODERN = fileURLToPath(new URL('../../examples/serve/modern-client.js', import.meta.url));

describe('examples/serve/modern-client', () => {
  it('answers a 2026-07-28 client input_required, and its retry after the approval gets the refund, in one run', () => {
    const run = spawnSync(process.execPath, [MODERN], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    const lines = run.stdout.trim().split('\n');
    assert.match(lines[1]!, /^client: Waiting for a person \(inbox item [0-9a-f-]+\)$/);
    // The conversation token carried the run: the refund's item holds the order the lookup read.
    assert.equal(lines[2], 'person: approving orders/refund_order {"orderId":"ord_1001"} (labels: confidential)');
    assert.equal(lines.at(-1), 'client: result {"orderId":"ord_1001","amountCents":4999}');
    assert.equal(lines.length, 4, run.stdout);
  });
});
