// The servers `serve.bench.ts` compares, one per process: the same `echo` tool served by the MCP SDK's
// own McpServer (over the SDK's StdioServerTransport) or by Wardrik's mcpServer (memory store, read-only
// tool: allowed, journaled, labelled; over its own stdio transport, as `wardrik serve --stdio` serves,
// or, for reference, `wardrik-sdk-stdio`, over the SDK's).
//   node serve-server.js sdk|wardrik|wardrik-sdk-stdio stdio|http   (http: prints the port on stdout; stops when stdin closes)
import 'reflect-metadata';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { defineTool, Wardrik } from '../src/index.js';

const [which, kind] = process.argv.slice(2) as ['sdk' | 'wardrik' | 'wardrik-sdk-stdio', 'stdio' | 'http'];

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

if (which === 'sdk') {
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
