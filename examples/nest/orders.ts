import 'reflect-metadata';
import { Injectable, Module } from '@nestjs/common';
import { IsInt, IsString, Matches, Max, Min } from 'class-validator';
import { Describe, Idempotent, ReadOnly, Tool, Toolset, type ToolContext } from '../../src/index.js';

/** The app's configuration, as a ConfigService gives it: read once from the environment. */
@Injectable()
export class AppConfig {
  readonly refundLimitCents = Number(process.env.REFUND_LIMIT_CENTS ?? 20_000);
  readonly store = process.env.WARDRIK_STORE ?? 'memory:';
}

/** The app's repository: in a real app, a database. */
@Injectable()
export class OrdersRepository {
  readonly refunds: { orderId: string; amountCents: number; key: string }[] = [];

  find(orderId: string) {
    return orderId === 'ord_1' ? { id: 'ord_1', status: 'shipped', totalCents: 4999 } : undefined;
  }

  refund(orderId: string, amountCents: number, key: string) {
    const done = this.refunds.find((refund) => refund.key === key);
    if (done !== undefined) return done;
    const refund = { orderId, amountCents, key };
    this.refunds.push(refund);
    return refund;
  }
}

export class FindOrderArgs {
  @Describe('The order, such as ord_1')
  @IsString()
  @Matches(/^ord_/)
  orderId!: string;
}

export class RefundArgs extends FindOrderArgs {
  @Describe('Amount in cents')
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  amountCents!: number;
}

/** An ordinary Nest provider: Nest builds it with its repository and configuration; Wardrik calls it. */
@Injectable()
@Toolset('orders')
export class OrderTools {
  constructor(
    private readonly orders: OrdersRepository,
    private readonly config: AppConfig,
  ) {}

  @Tool({ description: 'Find an order by id, with its status and total.' })
  @ReadOnly()
  findOrder(args: FindOrderArgs, ctx: ToolContext) {
    const order = this.orders.find(args.orderId);
    if (order === undefined) throw new Error(`No order ${args.orderId}; order ids look like ord_1.`);
    return { ...order, refundLimitCents: this.config.refundLimitCents, askedBy: ctx.caller.principal };
  }

  @Tool({ name: 'refund_order', description: 'Refund part or all of an order.' })
  @Idempotent()
  refund(args: RefundArgs, ctx: ToolContext) {
    if (args.amountCents > this.config.refundLimitCents)
      throw new Error(`Refunds above ${this.config.refundLimitCents} cents go to finance; ask for less.`);
    return this.orders.refund(args.orderId, args.amountCents, ctx.idempotencyKey);
  }
}

@Module({ providers: [AppConfig], exports: [AppConfig] })
export class ConfigModule {}

@Module({ imports: [ConfigModule], providers: [OrdersRepository, OrderTools], exports: [OrdersRepository] })
export class OrdersModule {}
