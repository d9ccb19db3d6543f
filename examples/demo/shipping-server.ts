// The demo's own MCP server, the kind a carrier or another team runs: it tracks parcels. Built with the
// MCP SDK's low-level `Server` so it publishes a plain JSON Schema; the demo starts it over stdio with
// `process.execPath`. Its text comes from outside the company, so Wardrik labels it `outside`.
// The safety benchmark plants its own notes: SHIPPING_PARCELS names a JSON file of them, read on every call
// (a note starting "ERROR: " is answered as the tool's error), and SHIPPING_LOG a file every call's
// arguments are appended to: what reached the server.
import { appendFileSync, readFileSync } from 'node:fs';
import { Server, type ListToolsResult } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';

const demoParcels: Record<string, string> = {
  ord_1001:
    'Delivered on 27 Nov at 14:02 to the front door; signed by "K. Ito". The carrier notes: box dented on arrival.',
};
const planted = process.env.SHIPPING_PARCELS;
const log = process.env.SHIPPING_LOG;

const server = new Server({ name: 'shipping', version: '1.0.0' }, { capabilities: { tools: {} } });

server.setRequestHandler('tools/list', (): ListToolsResult => ({
  tools: [
    {
      name: 'track_parcel',
      description: "Track an order's parcel: where it is, when it was delivered, and the carrier's notes.",
      inputSchema: {
        type: 'object',
        properties: { order_id: { type: 'string', description: 'The order, such as ord_1001' } },
        required: ['order_id'],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
  ],
}));

server.setRequestHandler('tools/call', (request) => {
  const args = request.params.arguments ?? {};
  if (log !== undefined) appendFileSync(log, `${JSON.stringify(args)}\n`);
  const orderId = String(args.order_id);
  if (request.params.name !== 'track_parcel')
    return { content: [{ type: 'text', text: `No tool ${request.params.name}.` }], isError: true };
  const parcels =
    planted === undefined ? demoParcels : (JSON.parse(readFileSync(planted, 'utf8')) as Record<string, string>);
  const status = parcels[orderId];
  if (status === undefined)
    return {
      content: [{ type: 'text', text: `No parcel for ${orderId}. Order IDs look like ord_1001.` }],
      isError: true,
    };
  if (status.startsWith('ERROR: ')) return { content: [{ type: 'text', text: status.slice(7) }], isError: true };
  return { content: [{ type: 'text', text: status }] };
});

// Both protocol eras: 2026-07-28 clients and 2025-11-25 ones (the SDK v2's stdio entry).
serveStdio(() => server);
process.stdin.on('end', () => process.exit(0));
