// The safety benchmark's carrier: an MCP server over stdio, like the demo's shipping server, that nobody
// on the agent's side controls. Its parcel notes come from the file CARRIER_PARCELS names, read on every
// call so each case can plant its own text; a note starting with "ERROR: " is answered as the tool's error.
// Every call's arguments are appended to the file CARRIER_LOG: what reached the server.
import { appendFileSync, readFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const parcelsFile = process.env.CARRIER_PARCELS ?? '';
const logFile = process.env.CARRIER_LOG ?? '';
const server = new Server({ name: 'shipping', version: '1.0.0' }, { capabilities: { tools: {} } });

server.setRequestHandler(ListToolsRequestSchema, () => ({
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
      // It says it only reads and stays closed: an untrusted server's word, which Wardrik does not take.
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
  ],
}));

server.setRequestHandler(CallToolRequestSchema, (request) => {
  const args = request.params.arguments ?? {};
  if (logFile !== '') appendFileSync(logFile, `${JSON.stringify(args)}\n`);
  const orderId = String(args.order_id);
  const parcels = JSON.parse(readFileSync(parcelsFile, 'utf8')) as Record<string, string>;
  const note = parcels[orderId];
  if (note === undefined) return { content: [{ type: 'text', text: `No parcel for ${orderId}. Order IDs look like ord_1001.` }], isError: true };
  if (note.startsWith('ERROR: ')) return { content: [{ type: 'text', text: note.slice(7) }], isError: true };
  return { content: [{ type: 'text', text: note }] };
});

await server.connect(new StdioServerTransport());
process.stdin.on('end', () => process.exit(0));
