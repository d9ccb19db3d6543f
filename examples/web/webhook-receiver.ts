// docs/web-inbox.md "Checking the signature": a receiver of the inbox's webhook that trusts only signed, fresh messages, each once.
import { createServer } from 'node:http';
import { verifyWebhook, type InboxWaitingMessage, type VerifyWebhookOptions } from '../../src/index.js';

/** Wardrik's messages are under 20 KB; a body over this is refused unread, as express.json() does. */
const BODY_LIMIT = 100 * 1024;

export function webhookReceiver(
  secret: string,
  onMessage: (message: InboxWaitingMessage) => void,
  options: VerifyWebhookOptions = {},
) {
  const firstTime = onceEach(options.toleranceMs ?? 5 * 60_000, options.now ?? Date.now);
  return createServer((request, response) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= BODY_LIMIT) chunks.push(chunk);
      else if (!response.headersSent) response.writeHead(413).end(); // the rest is read and dropped
    });
    request.on('end', () => {
      if (size > BODY_LIMIT) return;
      const raw = Buffer.concat(chunks).toString('utf8');
      // The signature covers the webhook-id and webhook-timestamp headers: a message sent again after 5 minutes is refused.
      const checked = verifyWebhook(secret, request.headers, raw, options);
      if (!checked.ok) return void response.writeHead(401).end(checked.reason);
      // A repeated id was taken before (a retry whose answer was lost, or a replay): 2xx, but handed on only once.
      if (firstTime(checked.id, checked.sentAt)) onMessage(JSON.parse(raw) as InboxWaitingMessage);
      response.writeHead(204).end(); // any 2xx: delivered; a 4xx but 408 and 429 is not retried, anything else is
    });
  });
}

/**
 * Whether a delivery id is new. Each id is kept until its message's time leaves the tolerance, when
 * verifyWebhook refuses that message anyway. Several receivers behind a load balancer share these ids
 * instead (Redis: SET id 1 NX PXAT sentAt+tolerance).
 */
export function onceEach(toleranceMs: number, now: () => number): (id: string, sentAt: number) => boolean {
  const seen = new Map<string, number>();
  return (id, sentAt) => {
    const at = now();
    for (const [known, forgetAt] of seen) if (forgetAt < at) seen.delete(known);
    const known = seen.has(id);
    seen.set(id, Math.max(seen.get(id) ?? 0, sentAt + toleranceMs));
    return !known;
  };
}
