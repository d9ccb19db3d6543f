import { getMaxListeners, setMaxListeners } from 'node:events';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { Readable } from 'node:stream';
import { ReadableStream as WebReadableStream } from 'node:stream/web';
import { EgressRefusedError } from '../errors.js';
import type { ResponseStreamWatch } from './call-links.js';
import type { EgressCheck, ResolvedAddress } from './egress.js';
import { cappedBody, type MessageTooLarge } from './message-limit.js';

/** The fetch the SDK's Streamable HTTP transport takes. */
export type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** A fetch that connects only where an egress check allowed, and its sockets' owner. */
export interface PinnedFetch {
  readonly fetch: FetchLike;
  /** Destroys every socket it opened. */
  close(): void;
}

/** The cap on each message a response carries (a JSON body, or one SSE event), and who hears it was passed. */
export interface MessageCap {
  readonly maxBytes: number;
  readonly onTooLarge: (error: MessageTooLarge) => void;
  /**
   * A watch on the SSE stream answering a POST, given the POST's body: it sees the stream's whole events
   * (a question is related to the call it came during) and its end (an answer lost). See `CallLinks`.
   */
  readonly watch?: (requestBody: string) => ResponseStreamWatch | undefined;
}

/**
 * A fetch whose sockets this connection owns (so closing the connection closes them at once, instead of
 * leaving them in the process-wide keep-alive pool), and that, given an egress check, connects only
 * where the check allowed.
 *
 * With a check: a fetch for a runtime server behind an egress check. Every origin a request goes to (the server's,
 * and any a redirect leads to) is checked once for this connection, and each request goes to the
 * address that check allowed: the socket is opened to that address, while the URL's host name stays
 * in the `Host` header and in TLS (SNI and certificate), so a DNS answer that changes between the
 * check and the connection (rebinding) is never used. Redirects are returned to the caller, not followed
 * here; the SDK follows same-origin ones through this fetch again, so they are checked too.
 */
export function pinnedFetch(
  check: EgressCheck | undefined,
  first?: { readonly url: URL; readonly addresses: readonly ResolvedAddress[] | undefined },
  cap?: MessageCap,
): PinnedFetch {
  const pins = new Map<string, Promise<ResolvedAddress | undefined>>();
  if (first !== undefined) pins.set(first.url.origin, Promise.resolve(first.addresses?.[0]));
  const agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };
  const pinFor = (url: URL): Promise<ResolvedAddress | undefined> => {
    if (check === undefined) return Promise.resolve(undefined);
    let pin = pins.get(url.origin);
    if (pin === undefined) {
      pin = (async () => {
        let verdict;
        try {
          verdict = await check(url);
        } catch (error) {
          throw new EgressRefusedError(
            `${url.origin} is refused: the egress check threw (${(error as Error).message}).`,
          );
        }
        if (!verdict.ok) throw new EgressRefusedError(verdict.reason);
        return verdict.addresses?.[0];
      })();
      pins.set(url.origin, pin);
      // A refusal is not remembered: the next request asks the check again.
      pin.catch(() => pins.delete(url.origin));
    }
    return pin;
  };
  const fetch: FetchLike = async (input, init = {}) => {
    const url = new URL(typeof input === 'string' ? input : input.href);
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new EgressRefusedError(`${url.protocol} URLs are not allowed for MCP servers.`);
    const pinned = check === undefined ? undefined : await pinFor(url);
    return request(url, init, pinned, url.protocol === 'https:' ? agents.https : agents.http, cap);
  };
  return {
    fetch,
    close() {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}

/**
 * The SDK's HTTP transport gives all its requests one AbortSignal; with many calls in flight each adds
 * a listener to it, which Node warns about past 10. Those listeners are removed as requests end.
 */
const roomy = new WeakSet<AbortSignal>();
function makeRoom(signal: AbortSignal): void {
  if (roomy.has(signal)) return;
  roomy.add(signal);
  if (getMaxListeners(signal) < 10_000) setMaxListeners(10_000, signal);
}

function request(
  url: URL,
  init: RequestInit,
  pinned: ResolvedAddress | undefined,
  agent: http.Agent,
  cap: MessageCap | undefined,
): Promise<Response> {
  if (init.signal) makeRoom(init.signal);
  const method = (init.method ?? 'GET').toUpperCase();
  const headers: Record<string, string> = {};
  new Headers(init.headers).forEach((value, key) => {
    headers[key] = value;
  });
  const lookup: LookupFunction | undefined =
    pinned === undefined
      ? undefined
      : (_hostname, options, callback) => {
          if ((options as { all?: boolean }).all === true)
            (callback as unknown as (e: null, a: ResolvedAddress[]) => void)(null, [pinned]);
          else callback(null, pinned.address, pinned.family);
        };
  return new Promise<Response>((resolve, reject) => {
    const req = (url.protocol === 'https:' ? https : http).request(
      url,
      {
        method,
        headers,
        agent,
        ...(lookup === undefined ? {} : { lookup }),
        ...(init.signal ? { signal: init.signal } : {}),
      },
      (res) => {
        const status = res.statusCode ?? 0;
        if (status < 200 || status > 599) {
          res.destroy();
          reject(new Error(`${url.origin} answered with HTTP status ${status}, which an MCP client cannot use.`));
          return;
        }
        const responseHeaders = new Headers();
        for (let i = 0; i + 1 < res.rawHeaders.length; i += 2)
          responseHeaders.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
        const empty = method === 'HEAD' || status === 204 || status === 205 || status === 304;
        if (empty) res.resume();
        const sent = init.body;
        const watch =
          !empty && cap?.watch !== undefined && method === 'POST' && typeof sent === 'string' && isEventStream(res)
            ? cap.watch(sent)
            : undefined;
        if (watch !== undefined) {
          const ended = (): void => watch.ended();
          res.once('end', ended);
          res.once('close', ended);
        }
        const body = empty
          ? null
          : webBody(
              cap === undefined
                ? res
                : cappedBody(
                    res,
                    cap.maxBytes,
                    cap.onTooLarge,
                    watch === undefined ? undefined : (events: Buffer) => watch.events(events),
                  ),
            );
        resolve(
          new Response(body as unknown as ConstructorParameters<typeof Response>[0], {
            status,
            statusText: res.statusMessage ?? '',
            headers: responseHeaders,
          }),
        );
      },
    );
    req.on('error', reject);
    const body = init.body;
    if (body === undefined || body === null) req.end();
    else if (typeof body === 'string' || body instanceof Uint8Array) req.end(body);
    else if (body instanceof URLSearchParams) {
      // An OAuth token request's form.
      if (!req.hasHeader('content-type'))
        req.setHeader('content-type', 'application/x-www-form-urlencoded;charset=UTF-8');
      req.end(body.toString());
    } else {
      req.destroy();
      reject(new TypeError('The pinned fetch sends only string, byte or form (URLSearchParams) bodies.'));
    }
  });
}

function isEventStream(res: http.IncomingMessage): boolean {
  return (res.headers['content-type'] ?? '').toLowerCase().startsWith('text/event-stream');
}

/**
 * A response body as a web stream, in place of `Readable.toWeb`: on Node 20 that one throws an uncaught
 * "Controller is already closed" when data arrives after the reader cancelled (the SDK cancels a
 * body it is done with), which ended the whole process. Here data after a cancel is dropped.
 */
function webBody(source: Readable): WebReadableStream<Uint8Array> {
  let done = false;
  return new WebReadableStream<Uint8Array>({
    start(controller) {
      source.on('data', (chunk: Buffer) => {
        if (done) return;
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 0) <= 0) source.pause();
      });
      source.on('end', () => {
        if (done) return;
        done = true;
        controller.close();
      });
      source.on('error', (error) => {
        if (done) return;
        done = true;
        controller.error(error);
      });
    },
    pull() {
      source.resume();
    },
    cancel() {
      done = true;
      source.destroy();
    },
  });
}
