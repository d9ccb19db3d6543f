// Tools whose effects land in a ledger file outside the store, so a crash test can count them.
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { defineTool, type ToolContext, type ToolDefinition } from '../../src/index.js';

export function readLedger(path: string): string[] {
  return existsSync(path)
    ? readFileSync(path, 'utf8')
        .split('\n')
        .filter((line) => line !== '')
    : [];
}

/** For load tests: a wait before each effect, and each line ending with the attempt that wrote it. */
export interface LedgerOptions {
  readonly beforeEffect?: () => Promise<void>;
  readonly attempts?: boolean;
}

/**
 * `read` (read-only), `refund` (idempotent: like Stripe, a key already in the ledger does nothing) and
 * `email` (neither: every run is an effect). `afterEffect` runs right after the effect is written.
 */
export function ledgerTools(
  ledger: string,
  afterEffect: () => Promise<void> = async () => {},
  options: LedgerOptions = {},
): ToolDefinition[] {
  const effect = async (tool: string, ctx: ToolContext, done = (): boolean => false): Promise<void> => {
    await options.beforeEffect?.();
    if (done()) return;
    appendFileSync(ledger, `${tool} ${ctx.idempotencyKey}${options.attempts === true ? ` ${ctx.attempt}` : ''}\n`);
    await afterEffect();
  };
  const refunded = (key: string): boolean =>
    readLedger(ledger).some((line) => line === `refund ${key}` || line.startsWith(`refund ${key} `));
  return [
    defineTool({
      name: 'read',
      description: 'Reads.',
      annotations: { readOnly: true },
      run: async (_a, ctx: ToolContext) => effect('read', ctx).then(() => 'read'),
    }),
    defineTool({
      name: 'refund',
      description: 'Refunds once per idempotency key.',
      annotations: { idempotent: true },
      run: async (_a, ctx: ToolContext) => {
        await effect('refund', ctx, () => refunded(ctx.idempotencyKey));
        return 'refunded';
      },
    }),
    defineTool({
      name: 'email',
      description: 'Sends an email.',
      run: async (_a, ctx: ToolContext) => effect('email', ctx).then(() => 'sent'),
    }),
  ];
}
