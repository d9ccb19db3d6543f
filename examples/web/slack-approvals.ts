// docs/web-inbox.md "Answering from Slack": refunds approved with buttons in a Slack channel, by named finance leads.
import 'reflect-metadata';
import { pathToFileURL } from 'node:url';
import { defineTool, Wardrik, type SlackOptions } from '../../src/index.js';

const refund = defineTool({
  name: 'refund',
  description: 'Refund an order in full.',
  input: {
    type: 'object',
    properties: { orderId: { type: 'string' } },
    required: ['orderId'],
    additionalProperties: false,
  },
  run: ({ orderId }: { orderId: string }) => ({ refunded: orderId }),
});

/** The refund desk: refunds need a finance lead, never the person the agent acts for; the inbox answers from Slack. */
export async function startRefundDesk(options: { store: string; port?: number; slack?: Partial<SlackOptions> }) {
  const wardrik = await Wardrik.create({
    store: options.store,
    tools: { shop: [refund] },
    policy: { rules: [{ match: 'shop/refund', action: 'ask', approvers: ['finance-leads'] }] },
  });
  const inbox = wardrik.inboxWeb({
    publicUrl: process.env.INBOX_PUBLIC_URL ?? 'http://127.0.0.1:8040/', // the link in each message
    slack: {
      // signingSecret and botToken: WARDRIK_SLACK_SIGNING_SECRET and WARDRIK_SLACK_BOT_TOKEN unless given
      channel: process.env.SLACK_CHANNEL_ID ?? 'C0123ABCD',
      people: {
        U0123ANA: { id: 'ana@example.com', groups: ['finance-leads'] },
        U0456BOB: { id: 'bob@example.com', groups: ['finance-leads', 'support'] },
      },
      ...options.slack,
    },
  });
  const { url } = await inbox.listen({ host: '127.0.0.1', port: options.port ?? 8040 });
  return { wardrik, url, close: () => wardrik.close() }; // closing Wardrik closes the inbox and the poster
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const desk = await startRefundDesk({ store: 'sqlite:.wardrik/wardrik.db' });
  console.log(`The inbox is at ${desk.url}; Slack's Request URL is its slack/interactions.`);
  process.once('SIGTERM', () => void desk.close());
}
