import type { IncomingMessage, ServerResponse } from 'node:http';
import { once } from 'node:events';
import type { Transport } from '@modelcontextprotocol/server';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { classifyInboundRequest, type AuthInfo, type McpHandlerRequestOptions } from '@modelcontextprotocol/server';

/** The `_meta` key every 2026-07-28 request carries: the per-request envelope's protocol version. */
export const PROTOCOL_VERSION_META = 'io.modelcontextprotocol/protocolVersion';

/**
 * Whether a message claims the 2026-07-28 era: a single request or notification whose `_meta` carries
 * the per-request envelope's protocol version. 2025-era messages (an `initialize`, anything in a
 * session) never do: that key's prefix is reserved in 2025-11-25 too.
 */
export function claimsModernEra(message: unknown): boolean {
  if (message === null || typeof message !== 'object' || Array.isArray(message)) return false;
  const meta = (message as { params?: { _meta?: unknown } }).params?._meta;
  return (
    meta !== null && typeof meta === 'object' && (meta as Record<string, unknown>)[PROTOCOL_VERSION_META] !== undefined
  );
}

/** One value of an HTTP header, if the request has it. */
function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Whether a POST without a session id belongs to the 2026-07-28 handler, by the SDK's own classification:
 * a request with the envelope, and also one whose `MCP-Protocol-Version` header names 2026-07-28 or later
 * but whose envelope is missing or broken, which that handler answers -32602 with the request's id (a
 * 2025 path would only say that no session was opened). A 2025 client's first request, `initialize`, and
 * everything without envelope or modern header stay on the 2025 path.
 */
export function postGoesToModernEra(req: IncomingMessage, body: unknown): boolean {
  if (claimsModernEra(body)) return true;
  return (
    classifyInboundRequest({
      httpMethod: 'POST',
      protocolVersionHeader: header(req, 'mcp-protocol-version'),
      mcpMethodHeader: header(req, 'mcp-method'),
      mcpNameHeader: header(req, 'mcp-name'),
      body,
    }).kind !== 'legacy'
  );
}

/**
 * Serves one connection in the era its first message opens: `legacy` gets the transport for a
 * 2025-era opening (`initialize`), `modern` for a 2026-07-28 one (`server/discover` or any request with
 * the envelope). Each gets a transport that replays the first message and passes on every other.
 */
export async function connectByEra(
  transport: Transport,
  legacy: (transport: Transport) => Promise<void>,
  modern: (transport: Transport) => Promise<void>,
  warn: (message: string) => void,
): Promise<void> {
  const handover = new Handover(transport);
  let decided = false;
  transport.onmessage = (message) => {
    if (decided) return handover.deliver(message);
    decided = true;
    handover.deliver(message);
    (claimsModernEra(message) ? modern : legacy)(handover).catch((error: unknown) =>
      warn(`The MCP connection could not start: ${(error as Error)?.message ?? String(error)}`),
    );
  };
  // Whoever listened for the close before (`wardrik serve` waits for it to exit) still hears it.
  const closed = transport.onclose;
  transport.onclose = () => {
    closed?.();
    handover.onclose?.();
  };
  transport.onerror = (error) =>
    handover.onerror !== undefined ? handover.onerror(error) : warn(`The MCP connection reported: ${error.message}`);
  await transport.start();
}

/** The connection as the chosen era's server sees it: messages held until it is listening, then passed on. */
class Handover implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private held: JSONRPCMessage[] | undefined = [];

  constructor(private readonly inner: Transport) {}

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  deliver(message: JSONRPCMessage): void {
    if (this.held !== undefined) this.held.push(message);
    else this.onmessage?.(message);
  }

  /** Already started: what came before the server listened is passed on once its connect has finished. */
  async start(): Promise<void> {
    setImmediate(() => {
      const held = this.held ?? [];
      this.held = undefined;
      for (const message of held) this.onmessage?.(message);
    });
  }

  send(message: JSONRPCMessage, options?: Parameters<Transport['send']>[1]): Promise<void> {
    return this.inner.send(message, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/** The Node request a 2026-07-28 handler's web `Request` was made from, for the identify hook. */
export const nodeRequests = new WeakMap<Request, IncomingMessage>();

/** A web-standard MCP handler: SDK v2's `createMcpHandler().fetch`, or a session transport's `handleRequest`. */
export type WebHandler = (request: Request, options?: McpHandlerRequestOptions) => Promise<Response>;

/**
 * Serves one HTTP request with one of the SDK's web-standard handlers (the 2026-07-28 `createMcpHandler`,
 * or a 2025-11-25 session's transport), from the body already read and the token already checked: the
 * response's status, headers and body (a JSON body, whole in one write with its length, or an SSE stream
 * for a call that reports progress, for `subscriptions/listen` or a session's GET stream) go to `res`. A client that goes away aborts the
 * request and stops reading its stream (which closes a subscription).
 */
export async function serveWeb(
  handle: WebHandler,
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
): Promise<void> {
  const gone = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) gone.abort(new Error('The MCP client went away.'));
  });
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name === 'content-length' || name === 'transfer-encoding' || name.startsWith(':'))
      continue;
    headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  const request = new Request(`http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`, {
    method: req.method ?? 'POST',
    headers,
    signal: gone.signal,
  });
  nodeRequests.set(request, req);
  const auth = (req as IncomingMessage & { auth?: AuthInfo }).auth;
  const response = await handle(request, {
    parsedBody: body,
    ...(auth === undefined ? {} : { authInfo: auth }),
  });
  if (response.body !== null && isJson(response.headers.get('content-type'))) {
    // A JSON answer is whole when the handler gives it: sent with its length in one write, so the client
    // gets one packet and parses it at once, rather than headers, then a chunk, then the chunks' end.
    const whole = Buffer.from(await response.arrayBuffer());
    res.writeHead(response.status, { ...Object.fromEntries(response.headers), 'content-length': whole.length });
    return void res.end(whole);
  }
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (response.body === null) return void res.end();
  // An SSE stream (a session's GET) may say nothing for long: its client learns at once that it is open.
  res.flushHeaders();
  const reader: ReadableStreamDefaultReader<Uint8Array> = response.body.getReader();
  gone.signal.addEventListener('abort', () => void reader.cancel().catch(() => {}), { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(value)) await once(res, 'drain', { signal: gone.signal });
    }
  } catch {
    // The client went away mid-stream: nothing more to send.
  }
  res.end();
}

/** Whether a `content-type` is JSON's (`application/json`, parameters aside). */
function isJson(type: string | null): boolean {
  return type !== null && type.split(';', 1)[0]!.trim().toLowerCase() === 'application/json';
}
