// A module for `wardrik tools`: a toolset class whose constructor needs a service nobody registered
// (so describing it must not build it) and tool values from defineTool, alone and in an array.
import 'reflect-metadata';
import { IsString, Matches } from 'class-validator';
import { defineTool, Describe, Idempotent, ReadOnly, Timeout, Tool, Toolset } from '../../src/index.js';

export class Ledger {
  constructor(readonly url: string) {}
}

export class FindArgs {
  @Describe('Stripe payment intent ID, such as pi_123')
  @IsString()
  @Matches(/^pi_/)
  payment_intent!: string;
}

@Toolset('billing')
export class BillingTools {
  constructor(private readonly ledger: Ledger) {}

  @Tool({ description: 'Find the charge for a payment intent.', title: 'Find charge' })
  @ReadOnly()
  @Timeout(5_000)
  findCharge(args: FindArgs) {
    return { url: this.ledger.url, id: args.payment_intent };
  }

  @Tool({ name: 'refund_charge', description: 'Refund a charge in full.' })
  @Idempotent()
  refund(args: FindArgs) {
    return { refunded: args.payment_intent };
  }
}

export const orderStatus = defineTool({
  name: 'order_status',
  description: 'Say where an order is.',
  input: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
  annotations: { readOnly: true },
  run: ({ order_id }: { order_id: string }) => `Order ${order_id} shipped.`,
});

export const more = [
  defineTool({ name: 'ping', description: 'Answer pong.', run: () => 'pong' }),
  defineTool({ name: 'bad name!', description: 'Skipped: its name has a space.', run: () => 'never' }),
];

export const notATool = { name: 'just data' };
