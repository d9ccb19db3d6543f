import 'reflect-metadata';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { anthropicMessage, fakeApi } from './fake-providers.js';

const EXAMPLE = fileURLToPath(new URL('../../examples/agent.js', import.meta.url));

function runExample(env: Record<string, string | undefined>): Promise<string> {
  const clean = { ...process.env };
  for (const name of ['ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL']) delete clean[name];
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [EXAMPLE], { env: { ...clean, ...env } }, (error, stdout, stderr) =>
      error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout),
    );
  });
}

describe('examples/agent.ts', () => {
  it('runs offline with the scripted model, says so, and finishes after the approval', async () => {
    const out = await runExample({});
    assert.match(out, /Model: a SCRIPTED model \(offline demo/);
    assert.match(out, /Dana approves it/);
    assert.match(
      out,
      /Agent \(done, 3 model steps, \$0\.003300\): \[scripted\] Done: \{"orderId":"ord_1001","amountCents":4999\}\./,
    );
  });

  it('uses claude-haiku-4-5 when ANTHROPIC_API_KEY is set (here against a loopback fake of the API)', async () => {
    const replies = [
      anthropicMessage([{ tool: 'orders__find_order', id: 'toolu_1', input: { payment_intent: 'pi_123' } }]),
      anthropicMessage([{ tool: 'orders__refund_order', id: 'toolu_2', input: { orderId: 'ord_1001' } }]),
      anthropicMessage([{ text: 'Refunded ord_1001.' }]),
    ];
    const api = await fakeApi(() => replies.shift()!);
    try {
      const out = await runExample({ ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: `${api.url}/v1` });
      assert.match(out, /Model: anthropic:claude-haiku-4-5/);
      assert.match(out, /Agent \(done, 3 model steps, \$0\.00[0-9]+\): Refunded ord_1001\./);
      assert.equal(api.requests.length, 3);
    } finally {
      await api.close();
    }
  });
});
