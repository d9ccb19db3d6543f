// The MCP client under test for the conformance suite's client scenarios: Wardrik's hub, connected to
// the scenario's server (its URL is the last argument), calling each tool once through the runner. A
// "person" answers each question the server asks by accepting it with no fields, so the schema's
// defaults fill it (SEP-1034). Exits 0 when every call was answered.
import 'reflect-metadata';
import { Wardrik } from '../../../src/index.js';

const url = process.argv[process.argv.length - 1]!;
const wardrik = await Wardrik.create({
  store: 'memory:',
  recoverMs: Infinity,
  mcp: { servers: { c: { transport: { http: { url } }, gated: false, timeoutMs: 20_000 } }, waitMs: 10_000, reconcileMs: Infinity },
});
let calling = true;
const person = (async () => {
  while (calling) {
    for (const item of await wardrik.inbox.list()) {
      if (item.kind === 'question') await wardrik.inbox.answer(item.id, { action: 'accept', content: {} }, { by: 'conformance' }).catch(() => {});
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
})();
let failed = 0;
try {
  const tools = wardrik.tools(['c/*']);
  for (const entry of tools) {
    const schema = entry.inputSchema as { properties?: Record<string, { type?: string }> };
    const args = Object.fromEntries(Object.entries(schema.properties ?? {}).map(([key, property]) => [key, property.type === 'string' ? 'x' : property.type === 'boolean' ? true : 1]));
    const answer = await wardrik.runner.run({ agent: 'conformance', run: 'r', call: { id: entry.name, name: entry.name, arguments: args } });
    process.stdout.write(`${entry.name}: ${JSON.stringify(answer)}\n`);
    if (answer.status !== 'ok') failed++;
  }
} finally {
  calling = false;
  await person;
  await wardrik.close();
}
process.exit(failed === 0 ? 0 : 1);
