import type { IncomingMessage } from 'node:http';

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Why the request's `Host` is refused (DNS-rebinding protection), or `undefined`. One rule for both
 * HTTP servers: with `allowedHosts`, only those `Host` values (as sent, port included when the client
 * sends one); without, a server bound to a loopback address answers only loopback names (`localhost`,
 * `127.0.0.1`, `[::1]`, any port), and one bound elsewhere is not checked. `alsoAllowed` are hosts the
 * server knows are its own (the inbox's `publicUrl`). `fix` says where to add a host.
 */
export function hostRefusal(
  request: IncomingMessage,
  allowedHosts: readonly string[] | undefined,
  fix: string,
  alsoAllowed: readonly string[] = [],
): string | undefined {
  const host = request.headers.host?.toLowerCase();
  if (host !== undefined && alsoAllowed.includes(host)) return undefined;
  const refused =
    allowedHosts !== undefined
      ? host === undefined || !allowedHosts.includes(host)
      : boundToLoopback(request) && !LOOPBACK_NAMES.has(hostnameOf(host));
  return refused
    ? `Host ${JSON.stringify(host ?? '')} is not allowed here (DNS-rebinding protection); connect by an allowed name, or ${fix}.`
    : undefined;
}

/** Whether `origin`'s host is a loopback name. */
export function isLoopbackOrigin(origin: string): boolean {
  try {
    return LOOPBACK_NAMES.has(new URL(origin).hostname.toLowerCase());
  } catch {
    return false;
  }
}

/** Whether the server end of the request's connection is a loopback address. */
export function boundToLoopback(request: IncomingMessage): boolean {
  const address = request.socket.localAddress;
  return (
    address !== undefined && (address.startsWith('127.') || address === '::1' || address.startsWith('::ffff:127.'))
  );
}

/** `localhost:3000` → `localhost`, `[::1]:3000` → `[::1]`; '' for anything but a name and an optional `:port` (`localhost:1@evil.com`). */
function hostnameOf(host: string | undefined): string {
  const match = /^(\[[0-9a-f:.]+\]|[^[\]:@/\s]+)(?::(\d{1,5}))?$/i.exec(host ?? '');
  if (match === null || Number(match[2] ?? 0) > 65_535) return '';
  return match[1]!;
}
