import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { answerText, Wardrik } from '../../src/index.js';
import { OrderTools } from '../../examples/orders/order-tools.js';

describe('examples/orders/order-tools.ts', () => {
  it('offers find_order (read-only) and refund_order (idempotent) with their schemas', async () => {
    const wardrik = await Wardrik.create({ toolsets: [OrderTools], store: 'memory:' });
    try {
      const tools = wardrik.tools();
      assert.deepEqual(
        tools.map((t) => [t.name, t.annotations]),
        [
          ['orders__find_order', { readOnly: true }],
          ['orders__refund_order', { idempotent: true }],
        ],
      );
      assert.deepEqual(tools[0]!.inputSchema, {
        type: 'object',
        properties: {
          payment_intent: { type: 'string', pattern: '^pi_', description: 'Stripe payment intent ID, such as pi_123' },
        },
        required: ['payment_intent'],
        additionalProperties: false,
      });
    } finally {
      await wardrik.close();
    }
  });

  it('looks up an order through the runner', async () => {
    const wardrik = await Wardrik.create({ toolsets: [OrderTools], store: 'memory:' });
    try {
      const answer = await wardrik.runner.run({
        agent: 'support',
        run: 'r1',
        call: { id: 'c1', name: 'orders__find_order', arguments: { payment_intent: 'pi_123' } },
      });
      assert.equal(answer.status, 'ok');
      assert.deepEqual(JSON.parse(answerText(answer)), {
        id: 'ord_1001',
        paymentIntent: 'pi_123',
        status: 'shipped',
        totalCents: 4999,
        items: ['Blue mug'],
      });
    } finally {
      await wardrik.close();
    }
  });

  it('answers a bad argument with text the model can correct from', async () => {
    const wardrik = await Wardrik.create({ toolsets: [OrderTools], store: 'memory:' });
    try {
      const answer = await wardrik.runner.run({
        agent: 'support',
        run: 'r1',
        call: { id: 'c2', name: 'orders__find_order', arguments: { payment_intent: 'ch_1' } },
      });
      assert.equal(
        answerText(answer),
        [
          'Invalid arguments for tool "orders__find_order"; the tool did not run. Fix these and call it again:',
          '- payment_intent: payment_intent must match /^pi_/ regular expression (got "ch_1")',
        ].join('\n'),
      );
    } finally {
      await wardrik.close();
    }
  });

  it('answers an unknown payment intent with the error the tool threw', async () => {
    const wardrik = await Wardrik.create({ toolsets: [OrderTools], store: 'memory:' });
    try {
      const answer = await wardrik.runner.run({
        agent: 'support',
        run: 'r1',
        call: { id: 'c3', name: 'orders__find_order', arguments: { payment_intent: 'pi_999' } },
      });
      assert.equal(
        answer.status === 'error' && answer.message,
        'No order for pi_999. Payment intent IDs look like pi_123.',
      );
    } finally {
      await wardrik.close();
    }
  });
});
