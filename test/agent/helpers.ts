import 'reflect-metadata';
import type { Subscription } from 'rxjs';
import { defineTool, Wardrik, type ToolDefinition, type WardrikEvent, type WardrikOptions } from '../../src/index.js';

/** A Wardrik with the given tools under toolset `shop`, no background recovery, every event recorded. */
export async function agentHarness(tools: readonly ToolDefinition[], options: Omit<WardrikOptions, 'tools'> = {}) {
  const wardrik = await Wardrik.create({
    store: 'memory:',
    recoverMs: Infinity,
    ...options,
    agents: { modelRetry: { baseDelayMs: 1, maxDelayMs: 2 }, ...options.agents },
    tools: { shop: tools },
  });
  const events: WardrikEvent[] = [];
  const subscription: Subscription = wardrik.events$.subscribe((event) => events.push(event));
  return {
    wardrik,
    events,
    types(filter: (event: WardrikEvent) => boolean = () => true): string[] {
      return events.filter(filter).map((event) => event.type);
    },
    /** Resolves with the first event of `type` (already seen or still to come). */
    next<T extends WardrikEvent['type']>(
      type: T,
      match: (event: Extract<WardrikEvent, { type: T }>) => boolean = () => true,
    ): Promise<Extract<WardrikEvent, { type: T }>> {
      return new Promise((resolve) => {
        const seen = events.find((event) => event.type === type && match(event as never));
        if (seen !== undefined) return resolve(seen as never);
        const sub = wardrik.events$.subscribe((event) => {
          if (event.type === type && match(event as never)) {
            sub.unsubscribe();
            resolve(event as never);
          }
        });
      });
    },
    async close() {
      subscription.unsubscribe();
      await wardrik.close();
    },
  };
}

/** The shop's tools: a read-only lookup, a refund that asks a person, a paid quote, a failing tool. */
export function shopTools(log: string[] = []) {
  return [
    defineTool({
      name: 'find_order',
      description: 'Find an order by id.',
      input: {
        type: 'object',
        properties: { id: { type: 'string', description: 'Order id, such as ord_1' } },
        required: ['id'],
        additionalProperties: false,
      },
      annotations: { readOnly: true },
      run: async ({ id }: { id: string }) => {
        log.push(`find:${id}:start`);
        await new Promise((resolve) => setImmediate(resolve));
        log.push(`find:${id}:end`);
        return { id, status: 'shipped' };
      },
    }),
    defineTool({
      name: 'refund',
      description: 'Refund an order.',
      input: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'], additionalProperties: false },
      annotations: { idempotent: true },
      run: async ({ id }: { id: string }) => {
        log.push(`refund:${id}:start`);
        await new Promise((resolve) => setImmediate(resolve));
        log.push(`refund:${id}:end`);
        return { refunded: id };
      },
    }),
    defineTool({
      name: 'quote',
      description: 'A paid price quote.',
      input: { type: 'object', properties: {}, additionalProperties: false },
      annotations: { readOnly: true },
      run: (_args: object, ctx) => {
        ctx.cost(0.25);
        return 'quote: $10';
      },
    }),
    defineTool({
      name: 'broken',
      description: 'Always fails.',
      input: { type: 'object', properties: {}, additionalProperties: false },
      annotations: { readOnly: true },
      run: () => {
        throw new Error('The warehouse API said no. Try find_order instead.');
      },
    }),
  ];
}
