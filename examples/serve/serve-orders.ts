// Serving a service's toolsets to MCP clients: over Streamable HTTP on loopback with a bearer token,
// or over stdio for a client that starts the process (Claude Desktop). `wardrik serve` does the same
// from the command line.
//   npm run build && MCP_TOKEN=… node dist/examples/serve/serve-orders.js [--stdio]
import 'reflect-metadata';
import { timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import { OAuthError, OAuthErrorCode, type OAuthTokenVerifier } from '@modelcontextprotocol/server';
import { Wardrik } from '../../src/index.js';
import { OrderTools } from '../orders/order-tools.js';

const wardrik = await Wardrik.create({ toolsets: [OrderTools] });

// Any verifier of the SDK's kind: a JWT check, your OAuth server's introspection, or one shared token.
const verifier: OAuthTokenVerifier = {
  async verifyAccessToken(token) {
    const expected = Buffer.from(process.env.MCP_TOKEN ?? '');
    const given = Buffer.from(token);
    if (expected.length < 16 || given.length !== expected.length || !timingSafeEqual(given, expected))
      throw new OAuthError(OAuthErrorCode.InvalidToken, 'Unknown token.');
    return { token, clientId: 'support-desk', scopes: [], expiresAt: Math.floor(Date.now() / 1000) + 3600 };
  },
};

const server = wardrik.mcpServer({
  tools: ['orders/*'],
  authenticate: { verifier }, // the token's clientId is the agent: its policy rules and budget apply
  approvals: { waitMs: 50_000 },
});

if (process.argv.includes('--stdio')) {
  // stdin and stdout are the MCP channel now: log to stderr only.
  await server.connect();
} else {
  const url = await server.listen({ host: '127.0.0.1', port: 3000, path: '/mcp' });
  console.error(`MCP server at ${url}`);
}

/** Or mount it in an app you already run (Express: app.all('/mcp', handler)). */
export function mounted() {
  const handler = server.handler();
  return createServer((req, res) => {
    if (req.url?.startsWith('/mcp')) void handler(req, res);
    else res.writeHead(404).end();
  });
}
