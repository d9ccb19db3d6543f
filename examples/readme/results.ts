// docs/tools.md, "Results and errors" and "The context": what a tool returns, throws and receives.
import 'reflect-metadata';
import { IsString } from 'class-validator';
import {
  Idempotent,
  Labels,
  OpenWorld,
  park,
  ReadOnly,
  Tool,
  Toolset,
  ToolResult,
  type ToolContext,
} from '../../src/index.js';

class PageArgs {
  @IsString()
  url!: string;
}

class RefundArgs {
  @IsString()
  orderId!: string;
}

@Toolset('web')
export class WebTools {
  @Tool({ description: 'Fetch a web page as text.' })
  @ReadOnly()
  @OpenWorld()
  @Labels('outside')
  async fetchPage(args: PageArgs, { signal, cost }: ToolContext) {
    const response = await fetch(args.url, { signal }); // aborts on time-out or stop
    cost(0.0001); // a paid proxy, say
    if (!response.ok) throw new Error(`${args.url} answered ${response.status}; check the address and try once more.`);
    return new ToolResult(await response.text(), { labels: ['outside'] });
  }

  @Tool({ description: 'Refund an order; large refunds wait for a manager.' })
  @Idempotent()
  refund(args: RefundArgs, ctx: ToolContext) {
    if (args.orderId.startsWith('big_')) return park('Refunds over $500 need a manager');
    return {
      refunded: args.orderId,
      key: ctx.idempotencyKey,
      by: ctx.agent,
      run: ctx.run,
      attempt: ctx.attempt,
      labels: ctx.labels,
    };
  }
}
