// A small MCP server, the kind a team already has: notes you can search and add. Built with the MCP
// SDK's (v2) low-level `Server` so it publishes plain JSON Schemas; run over stdio by `hub.ts`.
import { Server, type ListToolsResult } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';

const notes = ['Deploys freeze on Fridays.', 'The on-call rota is in the wiki.'];
const server = new Server({ name: 'notes', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });

server.setRequestHandler('tools/list', (): ListToolsResult => ({
  tools: [
    {
      name: 'search_notes',
      description: 'Find notes containing a word.',
      inputSchema: {
        type: 'object',
        properties: { word: { type: 'string', description: 'The word to look for' } },
        required: ['word'],
      },
      annotations: { readOnlyHint: true },
    },
    {
      name: 'add_note',
      description: 'Add a note everyone on the team sees.',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      annotations: { destructiveHint: false, idempotentHint: false },
    },
  ],
}));

server.setRequestHandler('tools/call', (request) => {
  const args = (request.params.arguments ?? {}) as { word?: string; text?: string };
  if (request.params.name === 'search_notes') {
    const found = notes.filter((note) => note.toLowerCase().includes(String(args.word).toLowerCase()));
    return {
      content: [{ type: 'text', text: found.length > 0 ? found.join('\n') : `No note mentions "${args.word}".` }],
    };
  }
  if (request.params.name === 'add_note') {
    notes.push(String(args.text));
    return { content: [{ type: 'text', text: `Added note #${notes.length}.` }] };
  }
  return { content: [{ type: 'text', text: `No tool ${request.params.name}.` }], isError: true };
});

// Both protocol eras: 2026-07-28 clients and 2025-11-25 ones (the SDK v2's stdio entry).
serveStdio(() => server);
process.stdin.on('end', () => process.exit(0));
