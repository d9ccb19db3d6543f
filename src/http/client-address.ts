import type { IncomingMessage } from 'node:http';

/** A forwarded address longer than this is no address: it is cut, so a hostile header cannot grow a key. */
const MAX_ADDRESS = 100;

/**
 * Where a request comes from, for counting wrong guesses per source. The socket's peer, unless
 * `trustProxy` names a header a proxy in front sets (`x-forwarded-for`, `x-real-ip`): then its last
 * entry, the one the nearest proxy added. Earlier entries are whatever the client sent, so they are never read.
 */
export function clientAddress(request: IncomingMessage, trustProxy: string | undefined): string {
  const peer = request.socket.remoteAddress ?? 'unknown';
  if (trustProxy === undefined) return peer;
  const header = request.headers[trustProxy];
  const value = Array.isArray(header) ? header[header.length - 1] : header;
  const last = value?.split(',').pop()?.trim();
  return last === undefined || last === '' ? peer : last.slice(0, MAX_ADDRESS);
}
