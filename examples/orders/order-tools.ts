import 'reflect-metadata';
import { IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';
import { injectable } from 'tsyringe';
import { Describe, Idempotent, ReadOnly, Tool, Toolset, type ToolContext } from '../../src/index.js';

/** The app's own service: in a real app it talks to a database and Stripe. */
@injectable()
export class OrderService {
  private readonly orders = new Map([
    ['pi_123', { id: 'ord_1001', paymentIntent: 'pi_123', status: 'shipped', totalCents: 4999, items: ['Blue mug'] }],
  ]);
  readonly refunds = new Map<string, { orderId: string; amountCents: number }>();

  byPaymentIntent(paymentIntent: string) {
    return this.orders.get(paymentIntent);
  }

  refund(orderId: string, amountCents: number, idempotencyKey: string) {
    // Like Stripe: the same idempotency key never refunds twice.
    const existing = this.refunds.get(idempotencyKey);
    if (existing !== undefined) return existing;
    const refund = { orderId, amountCents };
    this.refunds.set(idempotencyKey, refund);
    return refund;
  }
}

export class FindOrderArgs {
  @Describe('Stripe payment intent ID, such as pi_123')
  @IsString()
  @Matches(/^pi_/)
  payment_intent!: string;
}

export class RefundArgs {
  @Describe('The order to refund, such as ord_1001')
  @IsString()
  @Matches(/^ord_/)
  orderId!: string;

  @Describe('Amount in cents; the whole order when left out')
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  amountCents?: number;
}

// The example's OrderService needs nothing, so tsyringe may build it; an app registers its own (docs/di.md).
@Toolset('orders', { buildDependencies: true })
export class OrderTools {
  constructor(private readonly orders: OrderService) {}

  @Tool({ description: 'Find the order for a Stripe payment intent, with items, status and total.' })
  @ReadOnly()
  findOrder(args: FindOrderArgs) {
    const order = this.orders.byPaymentIntent(args.payment_intent);
    if (order === undefined)
      throw new Error(`No order for ${args.payment_intent}. Payment intent IDs look like pi_123.`);
    return order;
  }

  @Tool({ name: 'refund_order', description: 'Refund an order, in full unless an amount is given.' })
  @Idempotent()
  refund(args: RefundArgs, ctx: ToolContext) {
    return this.orders.refund(args.orderId, args.amountCents ?? 4999, ctx.idempotencyKey);
  }
}
