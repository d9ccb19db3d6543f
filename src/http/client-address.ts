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

const PROXY_HEADERS = ['x-forwarded-for', 'forwarded', 'x-real-ip'] as const;

/**
 * The proxy header a request carries although `trustProxy` is not set, or `undefined`: a proxy is in
 * front, and every client it forwards shares its one address. Said once, as a warning, by each server.
 */
export function untrustedProxyHeader(request: IncomingMessage, trustProxy: string | undefined): string | undefined {
  if (trustProxy !== undefined) return undefined;
  return PROXY_HEADERS.find((name) => request.headers[name] !== undefined);
}
