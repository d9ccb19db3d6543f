// docs/web-inbox.md "Checking the signature": a receiver of the inbox's webhook that trusts only signed messages.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';

/** Whether `signature` (the `x-wardrik-signature` header) is the HMAC-SHA256 of exactly this raw body under `secret`. */
export function signedBy(secret: string, rawBody: string, signature: string | undefined): boolean {
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`);
  const given = Buffer.from(signature ?? '');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export function webhookReceiver(secret: string, onMessage: (message: { text: string; url: string }) => void) {
  return createServer((request, response) => {
    let raw = '';
    request.setEncoding('utf8').on('data', (chunk: string) => (raw += chunk));
    request.on('end', () => {
      if (!signedBy(secret, raw, request.headers['x-wardrik-signature'] as string | undefined)) {
        response.writeHead(401).end();
        return;
      }
      onMessage(JSON.parse(raw) as { text: string; url: string }); // also: item { id, kind, tool, agent, run, arguments, labels, reason }
      response.writeHead(204).end(); // any 2xx: delivered; anything else is retried
    });
  });
}
