// A module for `wardrik serve` that says how it is served: its tools (served as toolset `shop` with
// --toolset shop) and, in `wardrikOptions`, the policy, the agent its calls run as and that agent's budget.
import { defineTool, type ServeConfig } from '../../src/index.js';

export const lookup = defineTool({
  name: 'lookup',
  description: 'Look up an order.',
  input: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
  annotations: { readOnly: true },
  run: ({ id }: { id: string }) => ({ id, status: 'shipped' }),
});

export const refund = defineTool({
  name: 'refund',
  description: 'Refund an order; costs one dollar.',
  input: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
  annotations: { maxCostUsd: 1 },
  run: ({ id }: { id: string }, ctx) => {
    ctx.cost(1);
    return { refunded: id };
  },
});

export const wipe = defineTool({
  name: 'wipe',
  description: 'Delete every order.',
  annotations: { destructive: true },
  run: () => 'wiped',
});

export const wardrikOptions: ServeConfig = {
  policy: {
    rules: [
      { match: 'shop/refund', action: 'allow' },
      { match: 'shop/wipe', action: 'deny' },
    ],
  },
  serve: { agent: 'desktop', budgetUsd: 2 },
};
