// The MCP client's three safeguards, as configuration and as a person's answers: pinned tool
// definitions, servers' questions in the inbox, and OAuth sign-in. Type-checked by the build; the
// guide docs/mcp-client.md quotes it. The servers named here are examples, not reachable ones.
import 'reflect-metadata';
import { Wardrik, type InboxItem } from '../../src/index.js';

export async function configure(): Promise<Wardrik> {
  const wardrik = await Wardrik.create({
    store: 'sqlite:.wardrik/wardrik.db',
    mcp: {
      servers: {
        // A person signs in (authorization code with PKCE); Wardrik registers itself or uses its metadata document.
        linear: {
          transport: { http: { url: 'https://mcp.linear.app/mcp' } },
          oauth: { scope: 'read write' },
          timeoutMs: 300_000,
        },
        // Machine-to-machine: the client-credentials grant with a pre-registered client.
        billing: {
          transport: { http: { url: 'https://mcp.billing.example.com/mcp' } },
          oauth: { grant: 'client_credentials', clientId: 'wardrik', clientSecretCredential: 'BILLING_CLIENT_SECRET' },
        },
        // Its questions are declined at once; its tool changes are pinned as they come (trusted).
        internal: { transport: { stdio: { command: 'internal-mcp' } }, elicitation: 'decline', trusted: true },
      },
      oauth: { redirectUrl: 'https://wardrik.example.com/inbox/oauth/callback', keyCredential: 'WARDRIK_OAUTH_KEY' },
      elicitation: 'inbox', // the default: servers' questions go to a person
      elicitationWaitMs: 10 * 60_000, // unanswered for 10 minutes: declined
    },
  });
  wardrik.events$.subscribe((event) => {
    if (event.type === 'tool.changed')
      console.log(`${event.server}/${event.tool} changed: ${event.changes.join('; ')} (accepted: ${event.accepted})`);
  });
  return wardrik;
}

/** What a person does with each kind of item the MCP client puts in the inbox. */
export async function answer(wardrik: Wardrik, item: InboxItem): Promise<void> {
  switch (item.kind) {
    case 'tool_change':
      // The reason says what changed; item.detail has the definitions before and after.
      await wardrik.inbox.approve(item.id, { by: 'ann' }); // accepts the new definition and runs the call
      break;
    case 'question':
      // Fields left out take the requested schema's defaults; content that does not fit is refused, naming the field.
      await wardrik.inbox.answer(item.id, { action: 'accept', content: { name: 'Ada' } }, { by: 'ann' });
      break;
    case 'authorize':
      // item.detail.url is where the person signs in; the browser comes back to the redirect URL, which
      // `wardrik web` serves, or your app hands to the hub:
      await wardrik
        .mcp()
        .completeSignIn('https://wardrik.example.com/inbox/oauth/callback?code=…&state=…', { by: 'ann' });
      break;
  }
}
