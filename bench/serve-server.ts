// The servers `serve.bench.ts` compares, one per process: the same `echo` tool served by the MCP SDK v2's
// own McpServer (`sdk2`: serveStdio, or createMcpHandler behind node:http; both protocol eras), by SDK v1's
// McpServer (`sdk`, 2025-11-25 only, for reference) or by Wardrik's mcpServer (memory store, read-only
// tool: allowed, journaled, labelled; over its own stdio transport, as `wardrik serve --stdio` serves,
// or, for reference, `wardrik-sdk-stdio`, over SDK v1's).
//   node serve-server.js sdk2|sdk|wardrik|wardrik-sdk-stdio stdio|http   (http: prints the port on stdout; stops when stdin closes)
import 'reflect-metadata';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { createMcpHandler, McpServer as McpServerV2, type McpHttpHandler } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';
import { defineTool, Wardrik } from '../src/index.js';

const [which, kind] = process.argv.slice(2) as ['sdk2' | 'sdk' | 'wardrik' | 'wardrik-sdk-stdio', 'stdio' | 'http'];

function sdkServer(): McpServer {
  const server = new McpServer({ name: 'sdk', version: '1.0.0' });
  server.registerTool(
    'echo',
    { description: 'Echoes its text.', inputSchema: { text: z.string() }, annotations: { readOnlyHint: true } },
    ({ text }) => ({
      content: [{ type: 'text', text }],
    }),
  );
  return server;
}

function sdk2Server(): McpServerV2 {
  const server = new McpServerV2({ name: 'sdk2', version: '1.0.0' });
  server.registerTool(
    'echo',
    {
      description: 'Echoes its text.',
      inputSchema: z.object({ text: z.string() }),
      annotations: { readOnlyHint: true },
    },
    ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
  return server;
}

/** SDK v2's web-standard handler behind node:http, as an app without a framework serves it. */
function nodeHttp(handler: McpHttpHandler) {
  return createServer((req, res) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const headers = new Headers();
      for (const [key, value] of Object.entries(req.headers))
        if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(', ') : value);
      const response = await handler.fetch(
        new Request(`http://${req.headers.host}${req.url}`, {
          method: req.method,
          headers,
          ...(req.method === 'GET' || req.method === 'HEAD' ? {} : { body: Buffer.concat(chunks) }),
        }),
      );
      res.writeHead(response.status, Object.fromEntries(response.headers));
      if (response.body !== null) for await (const chunk of response.body) res.write(chunk);
      res.end();
    })().catch(() => res.destroy());
  });
}

if (which === 'sdk2') {
  if (kind === 'stdio') void serveStdio(sdk2Server);
  else {
    const http = nodeHttp(createMcpHandler(sdk2Server));
    http.listen(0, '127.0.0.1', () => console.log((http.address() as AddressInfo).port));
  }
} else if (which === 'sdk') {
  if (kind === 'stdio') {
    await sdkServer().connect(new StdioServerTransport());
  } else {
    // The SDK's own stateful pattern: one transport and one server per session, by mcp-session-id.
    const sessions = new Map<string, StreamableHTTPServerTransport>();
    const http = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const body = chunks.length === 0 ? undefined : JSON.parse(Buffer.concat(chunks).toString());
      const id = req.headers['mcp-session-id'];
      let transport = typeof id === 'string' ? sessions.get(id) : undefined;
      if (transport === undefined && isInitializeRequest(body)) {
        transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: randomUUID,
          onsessioninitialized: (sid) => void sessions.set(sid, transport!),
        });
        await sdkServer().connect(transport);
      }
      if (transport === undefined) return void res.writeHead(400).end();
      await transport.handleRequest(req, res, body);
    });
    http.listen(0, '127.0.0.1', () => console.log((http.address() as AddressInfo).port));
  }
} else {
  const echo = defineTool({
    name: 'echo',
    description: 'Echoes its text.',
    input: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    annotations: { readOnly: true },
    run: (args: { text: string }) => args.text,
  });
  const wardrik = await Wardrik.create({ store: 'memory:', recoverMs: Infinity, tools: { bench: [echo] } });
  const server = wardrik.mcpServer({ tools: ['bench/*'], names: 'bare', authenticate: false });
  if (kind === 'http') console.log(new URL(await server.listen()).port);
  else await server.connect(which === 'wardrik' ? undefined : new StdioServerTransport());
}
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
