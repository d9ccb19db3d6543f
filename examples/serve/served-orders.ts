// A module for `wardrik serve`: the toolsets to serve, and in `wardrikOptions` how to serve them (the
// policy, the agent calls run as, its budget, how long a call waits for a person).
//   npm run build && npx wardrik serve dist/examples/serve/served-orders.js --stdio --store sqlite:.wardrik/wardrik.db
import { type ServeConfig } from '../../src/index.js';

export { OrderTools } from '../orders/order-tools.js';

export const wardrikOptions: ServeConfig = {
  policy: {
    rules: [
      { match: 'orders/find_order', action: 'allow' },
      { match: 'orders/refund_order', action: 'ask' },
    ],
    approvalTtlMs: 24 * 60 * 60_000, // a refund nobody answers within a day is refused
  },
  serve: {
    agent: 'claude-desktop', // its calls, spend and inbox items are under this name
    budgetUsd: 20,
    instructions: 'Look orders up by payment intent. Refunds wait for a person to approve them.',
    approvals: { waitMs: 30_000, progressMs: 5_000 },
  },
};
