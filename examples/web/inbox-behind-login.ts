// docs/web-inbox.md "Mounted behind your app's login": the inbox under /ops/inbox of an app that has its own sign-in.
import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { defineTool, Wardrik, type WebhookOptions } from '../../src/index.js';

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

/** The app's own sessions. A stand-in for your real login (OIDC, SAML, a session store): here anyone may sign in as anyone. */
const sessions = new Map<string, string>();

/** Who is signed in to the app: the person's name, or nothing. */
function appUser(request: IncomingMessage): string | undefined {
  const id = /(?:^|;\s*)app_session=([\w-]+)/.exec(request.headers.cookie ?? '')?.[1];
  return id === undefined ? undefined : sessions.get(id);
}

export async function startOpsApp(
  options: { readonly store?: string; readonly port?: number; readonly webhook?: WebhookOptions } = {},
) {
  const wardrik = await Wardrik.create({
    store: options.store ?? 'sqlite:.wardrik/wardrik.db',
    tools: { shop: [refund] },
  });

  const inbox = wardrik.inboxWeb({
    authenticate: appUser, // the app's login decides who may answer; the name it returns is `by`
    basePath: '/ops/inbox', // a plain node:http server passes whole URLs (Express strips the mount path itself)
    publicUrl: 'https://ops.example.com/ops/inbox/', // the links in notifications
    ...(options.webhook === undefined ? {} : { notify: { webhook: options.webhook } }),
  });

  const server = createServer((request, response) => {
    if (request.url === '/ops/inbox' || request.url?.startsWith('/ops/inbox/')) return inbox.handler(request, response);
    if (request.method === 'POST' && request.url?.startsWith('/login?user=')) {
      const id = randomBytes(16).toString('hex');
      sessions.set(id, new URL(request.url, 'http://app').searchParams.get('user') ?? 'someone');
      response
        .writeHead(303, { location: '/ops/inbox/', 'set-cookie': `app_session=${id}; Path=/; HttpOnly; SameSite=Lax` })
        .end();
      return;
    }
    response.writeHead(404).end('Not found');
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  return {
    wardrik,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      await new Promise((resolve) => server.close(resolve));
      await wardrik.close(); // closes the inbox's notifier too
    },
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const app = await startOpsApp({ port: 3000 });
  console.log(
    `The app is at ${app.url}; sign in with: curl -i -X POST '${app.url}/login?user=dana', then open ${app.url}/ops/inbox/`,
  );
}
