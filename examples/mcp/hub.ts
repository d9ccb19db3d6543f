// Gives the tools of an MCP server to agents through Wardrik, without a model: the server's read-only
// search runs at once; adding a note is gated, so it waits for a person; a server added at runtime is
// checked by the egress check first. Run with `npm run build && node dist/examples/mcp/hub.js`.
import 'reflect-metadata';
import { fileURLToPath } from 'node:url';
import { answerText, publicOnly, Wardrik } from '../../src/index.js';

const notesServer = fileURLToPath(new URL('./notes-server.js', import.meta.url));

const wardrik = await Wardrik.create({
  store: 'memory:',
  mcp: {
    servers: { notes: { transport: { stdio: { command: process.execPath, args: [notesServer] } } } },
    check: publicOnly(), // servers added at runtime must be public HTTP(S) URLs
  },
});
wardrik.toolChanges$.subscribe(({ mcp, server, count }) =>
  console.log(`  tools.changed: ${mcp}/${server} offers ${count} tools`),
);

console.log('\nTools a model would see:');
for (const tool of wardrik.tools(['notes/*']))
  console.log(`  ${tool.name}: ${tool.description} ${JSON.stringify(tool.annotations)}`);

const run = 'run-1';
console.log('\nThe agent searches the notes (read-only: it runs; the answer is labelled "outside"):');
const found = await wardrik.runner.run({
  agent: 'triage',
  run,
  call: { id: 'c1', name: 'notes__search_notes', arguments: { word: 'friday' } },
});
console.log(`  answer: ${answerText(found)}  labels: ${JSON.stringify(found.labels)}`);

console.log('\nThe agent adds a note (gated: it waits for a person):');
const parked = await wardrik.runner.run({
  agent: 'triage',
  run,
  call: { id: 'c2', name: 'notes__add_note', arguments: { text: 'Ask before deploying.' } },
});
console.log(`  answer: ${answerText(parked)}`);
const [item] = await wardrik.inbox.list();
if (item !== undefined) {
  const added = await wardrik.inbox.approve(item.id, { by: 'dana@example.com', digest: item.digest });
  console.log(`  a person approved it: ${answerText(added)}`);
}

console.log('\nA user tries to add a server on a private address at runtime:');
try {
  await wardrik.mcp().add('intranet', { transport: { http: { url: 'http://10.0.0.8/mcp' } } });
} catch (error) {
  console.log(`  refused: ${(error as Error).message}`);
}
console.log(`  servers: ${wardrik.mcp().servers().join(', ')}`);

await wardrik.close();
