// docs/mcp-hub.md: configured servers, runtime servers and the egress check.
import 'reflect-metadata';
import { publicOnly, Wardrik } from '../../src/index.js';

const wardrik = await Wardrik.create({
  store: 'memory:',
  mcp: {
    servers: {
      github: {
        transport: { stdio: { command: 'github-mcp-server', args: ['stdio'] } },
        only: ['search_issues', 'create_issue'],
        credential: 'GITHUB_TOKEN',
      },
      linear: {
        transport: { http: { url: 'https://mcp.linear.app/mcp' } },
        credential: 'LINEAR_TOKEN',
        timeoutMs: 20_000,
      },
    },
    check: publicOnly(), // servers added at runtime must be public HTTP(S) URLs
    runtimeCredentials: ['SENTRY_TOKEN'], // the only credential they may name
  },
});
const agent = wardrik.startAgent({
  id: 'triage',
  model: 'anthropic:claude-haiku-4-5',
  tools: ['github/*', 'linear/*'],
});

await wardrik
  .mcp()
  .add('sentry', { transport: { http: { url: 'https://mcp.sentry.dev/mcp' } }, credential: 'SENTRY_TOKEN' });
wardrik.mcp().servers(); // ['github', 'linear', 'sentry'], sorted
await wardrik.mcp().remove('sentry'); // NotFoundError if unknown; ConflictError for a configured server
await wardrik.mcp().reconcile(); // re-read the store now (also every reconcileMs)

console.log(agent.id, wardrik.mcp().servers());
await wardrik.close();
