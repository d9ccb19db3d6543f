// The server the MCP conformance suite runs against: the fixture tools under their bare names, over
// Streamable HTTP on loopback. Prints its URL on stdout once it listens.
//   node dist/examples/serve/conformance-server.js [PORT]
import 'reflect-metadata';
import { Wardrik } from '../../src/index.js';
import { conformanceTools } from './conformance-tools.js';

const wardrik = await Wardrik.create({ store: 'memory:', tools: { conformance: conformanceTools } });
const server = wardrik.mcpServer({ tools: ['conformance/*'], names: 'bare', authenticate: false });
const url = await server.listen({ port: Number(process.argv[2] ?? 0) });
console.log(url);

const stop = async () => {
  await wardrik.close();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
