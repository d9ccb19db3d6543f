// A toolset for the Cedar tests: a write with arguments of every kind Cedar can type and @Resources, and
// a read without resources. Also a module for `wardrik policy schema` and `wardrik policy test`.
import 'reflect-metadata';
import { IsArray, IsBoolean, IsInt, IsNumber, IsOptional, IsString } from 'class-validator';
import { Describe, Idempotent, ReadOnly, Resources, Tool, Toolset } from '../../src/index.js';

export class RefundArgs {
  @Describe('The order to refund, such as o-1')
  @IsString()
  orderId!: string;

  @IsNumber()
  amount!: number;

  @IsInt()
  items!: number;

  @IsOptional()
  @IsBoolean()
  rush?: boolean;

  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  tags?: string[];
}

export class FindArgs {
  @IsString()
  orderId!: string;
}

/** What the tests count: calls that ran. */
export const ran: string[] = [];

@Toolset('orders')
export class OrderTools {
  @Tool({ description: 'Refund an order.' })
  @Idempotent()
  @Resources((args: RefundArgs) => [`orders/${args.orderId}`])
  refund(args: RefundArgs) {
    ran.push(`refund ${args.orderId}`);
    return { refunded: args.orderId, amount: args.amount };
  }

  @Tool({ name: 'find', description: 'Find an order.' })
  @ReadOnly()
  find(args: FindArgs) {
    ran.push(`find ${args.orderId}`);
    return { id: args.orderId };
  }
}

/** Policies for these tools: small refunds by a support agent run, refunds over 500 never, the rest ask. */
export const POLICIES = `@id("support-small-refunds")
permit (principal == Wardrik::Agent::"support", action == Wardrik::Action::"orders/refund", resource)
when { context.arguments.amount.lessThanOrEqual(decimal("100.0")) && !context.labels.contains("outside") };

@id("no-large-refunds")
forbid (principal, action == Wardrik::Action::"orders/refund", resource)
when { context.arguments.amount.greaterThan(decimal("500.0")) };

@id("dana-reads")
permit (principal in Wardrik::Person::"dana", action in Wardrik::Action::"orders", resource)
when { context.annotations.readOnly };

@id("no-locked-orders")
forbid (principal, action, resource is Wardrik::Resource)
when { resource.name like "orders/locked-*" };
`;
