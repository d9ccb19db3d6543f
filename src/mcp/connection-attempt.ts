import {
  Client,
  StreamableHTTPClientTransport,
  type Tool as McpTool,
  type Transport,
} from '@modelcontextprotocol/client';
import { getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import { CallLinks } from './call-links.js';
import { ChildTransport } from './child-transport.js';
import type { ConnectionSettings } from './connection-settings.js';
import { EgressRefusedError } from '../errors.js';
import type { ResolvedAddress } from './egress.js';
import type { MessageTooLarge } from './message-limit.js';
import { pinnedFetch, type PinnedFetch } from './pinned-fetch.js';
import { TOOLS_PAGE, type ToolsPage } from './tool-listing.js';
import { withTraceparent } from './trace-context.js';
import { timeRequests } from './operation-timing.js';
import { mcpOperationMetrics } from '../telemetry/mcp-metrics.js';
import type { Attributes } from '@opentelemetry/api';

/** What one connection attempt opened. */
export interface Opened {
  readonly client: Client;
  readonly transport: Transport;
  readonly fetcher: PinnedFetch | undefined;
  readonly links: CallLinks;
}

/**
 * The transport, with each message it sends shown to `links` first (a call's request id is learnt there),
 * and each request carrying the current trace's `traceparent` in its `_meta` (SEP-414). With a
 * MeterProvider, each request the client makes is timed (`mcp.client.operation.duration`).
 */
function noteSent<T extends Transport>(transport: T, links: CallLinks, client: Client, peer: Attributes): T {
  const metrics = mcpOperationMetrics();
  if (metrics !== undefined) timeRequests(client, metrics.client, peer);
  const send = transport.send.bind(transport);
  const connection = (): Attributes => {
    const version = client.getNegotiatedProtocolVersion();
    const session = transport.sessionId;
    return {
      ...peer,
      ...(version === undefined ? {} : { 'mcp.protocol.version': version }),
      ...(session === undefined ? {} : { 'mcp.session.id': session }),
    };
  };
  transport.send = (message, options) => {
    links.sent(message);
    return send(withTraceparent(message, connection), options);
  };
  return transport;
}

/**
 * Builds a client and a transport for one connection attempt to the server of `settings`: the credential
 * and, for a server added at runtime under an egress check, the check come first. Nothing is connected
 * yet; `onTooLarge` hears of a message past the limit. `where` names the server in errors.
 */
export async function openAttempt(
  settings: ConnectionSettings,
  where: string,
  onTooLarge: (error: MessageTooLarge) => void,
): Promise<Opened> {
  const { options, runtime, check, credentials, hub, server, maxMessageBytes, timers } = settings;
  const secret =
    options.credential === undefined ? undefined : await credentials.resolve(options.credential, { hub, server });
  if (options.credential !== undefined && (secret === undefined || secret === '')) {
    throw new Error(
      `credential "${options.credential}" has no value (the credential provider found none; by default it reads the environment variable of that name)`,
    );
  }
  const links = new CallLinks();
  const client = newClient(settings.elicitation, links);
  const peer: Attributes = { 'wardrik.mcp.server': server };
  if ('stdio' in options.transport) {
    if (runtime && check !== undefined) {
      throw new EgressRefusedError(
        `${where} runs a command, which a hub with an egress check refuses for servers added at runtime; use an http transport.`,
      );
    }
    const stdio = options.transport.stdio;
    const env: Record<string, string> = { ...getDefaultEnvironment(), ...stdio.env };
    if (options.credential !== undefined) env[options.credential] = secret!;
    const transport = new ChildTransport({
      command: stdio.command,
      args: stdio.args ?? [],
      env,
      ...(stdio.cwd === undefined ? {} : { cwd: stdio.cwd }),
      maxMessageBytes,
      onTooLarge,
      timers,
    });
    return {
      client,
      transport: noteSent(transport, links, client, { ...peer, 'network.transport': 'pipe' }),
      fetcher: undefined,
      links,
    };
  }
  const { url: text, headers } = options.transport.http;
  const url = new URL(text);
  let first: { url: URL; addresses: readonly ResolvedAddress[] | undefined } | undefined;
  const egress = runtime ? check : undefined;
  if (egress !== undefined) {
    let verdict;
    try {
      verdict = await egress(url);
    } catch (error) {
      throw new EgressRefusedError(`${url.origin} is refused: the egress check threw (${(error as Error).message}).`, {
        cause: error,
      });
    }
    if (!verdict.ok) throw new EgressRefusedError(verdict.reason);
    first = { url, addresses: verdict.addresses };
  }
  // Its own sockets, closed with the connection (and pinned to the checked address under a check).
  const fetcher = pinnedFetch(egress, first, {
    maxBytes: maxMessageBytes,
    onTooLarge,
    watch: (body) => links.watch(body),
  });
  const requestHeaders: Record<string, string> = { ...headers };
  if (secret !== undefined) requestHeaders.authorization = `Bearer ${secret}`;
  // With OAuth, every discovery, registration and token request goes through the same fetch: checked.
  const authProvider = settings.signIn === undefined ? undefined : await settings.signIn();
  const transport = new StreamableHTTPClientTransport(url, {
    requestInit: { headers: requestHeaders },
    fetch: fetcher.fetch,
    ...(authProvider === undefined ? {} : { authProvider }),
  });
  const http: Attributes = {
    ...peer,
    'network.transport': 'tcp',
    'network.protocol.name': 'http',
    'server.address': url.hostname,
    'server.port': Number(url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : url.port),
  };
  return { client, transport: noteSent(transport, links, client, http), fetcher, links };
}

/**
 * A client that speaks both protocol eras: it probes with `server/discover` and falls back to the
 * `initialize` handshake of a 2025-11-25 server. It offers elicitation (form and URL mode) when the server's
 * option allows it. A 2025 server asks with an `elicitation/create` request, answered here (`links` says
 * which call it belongs to); a 2026-07-28 server answers the call `input_required`, which the connection
 * answers itself (see `ServerConnection`), so the SDK's own fulfilment is off.
 */
function newClient(elicitation: ConnectionSettings['elicitation'], links: CallLinks): Client {
  const client = new Client(
    { name: 'wardrik', version: '0.1.0' },
    {
      capabilities: elicitation === undefined ? {} : { elicitation: { form: {}, url: {} } },
      versionNegotiation: { mode: 'auto' },
      inputRequired: { autoFulfill: false },
    },
  );
  if (elicitation === 'decline') client.setRequestHandler('elicitation/create', () => ({ action: 'decline' }));
  else if (elicitation !== undefined)
    client.setRequestHandler('elicitation/create', (request, ctx) =>
      elicitation(request.params, ctx.mcpReq.signal, links.linkOf(ctx.mcpReq.id)),
    );
  return client;
}

export async function listAll(client: Client, timeoutMs: number): Promise<McpTool[]> {
  const tools: McpTool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    // Not client.listTools(): see TOOLS_PAGE for what it costs with a hostile server.
    const result = (await client.request(
      { method: 'tools/list', ...(cursor === undefined ? {} : { params: { cursor } }) },
      TOOLS_PAGE,
      { timeout: timeoutMs },
    )) as ToolsPage;
    tools.push(...result.tools);
    cursor = result.nextCursor;
    if (cursor === undefined) break;
  }
  return tools;
}

export async function closeQuietly(
  client: Client,
  transport: Transport,
  fetcher: PinnedFetch | undefined,
): Promise<void> {
  try {
    await client.close();
  } catch {
    // already closed
  }
  try {
    await transport.close();
  } catch {
    // already closed
  }
  fetcher?.close();
}

export function describeFailure(error: unknown, exit: string | undefined): string {
  const message = error instanceof Error ? error.message : String(error);
  return exit === undefined ? message : `${message} (${exit})`;
}
