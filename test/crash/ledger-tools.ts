// Tools whose effects land in a ledger file outside the store, so a crash test can count them.
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { defineTool, type ToolContext, type ToolDefinition } from '../../src/index.js';

export function readLedger(path: string): string[] {
  return existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter((line) => line !== '') : [];
}

/**
 * `read` (read-only), `refund` (idempotent: like Stripe, a key already in the ledger does nothing) and
 * `email` (neither: every run is an effect). `afterEffect` runs right after the effect is written.
 */
export function ledgerTools(ledger: string, afterEffect: () => Promise<void> = async () => {}): ToolDefinition[] {
  const effect = async (line: string): Promise<void> => {
    appendFileSync(ledger, `${line}\n`);
    await afterEffect();
  };
  return [
    defineTool({ name: 'read', description: 'Reads.', annotations: { readOnly: true }, run: async (_a, ctx: ToolContext) => effect(`read ${ctx.idempotencyKey}`).then(() => 'read') }),
    defineTool({
      name: 'refund',
      description: 'Refunds once per idempotency key.',
      annotations: { idempotent: true },
      run: async (_a, ctx: ToolContext) => {
        if (!readLedger(ledger).includes(`refund ${ctx.idempotencyKey}`)) await effect(`refund ${ctx.idempotencyKey}`);
        return 'refunded';
      },
    }),
    defineTool({ name: 'email', description: 'Sends an email.', run: async (_a, ctx: ToolContext) => effect(`email ${ctx.idempotencyKey}`).then(() => 'sent') }),
  ];
}
