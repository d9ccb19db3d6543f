#!/usr/bin/env node
// The `wardrik` command: answer parked calls and look into runs, tools and MCP servers in a store.
import { enableCompileCache } from 'node:module';

// Node keeps the compiled code of the modules this command loads (in the OS's temporary directory, as
// tsc does), so that the next start, such as an MCP client starting `wardrik serve --stdio`, compiles
// none of them again (startup.bench.ts). Before the imports below, which it would otherwise miss.
enableCompileCache();
await import('reflect-metadata');
const { systemClock } = await import('../clock.js');
const { runCli } = await import('./program.js');

process.exitCode = await runCli(process.argv.slice(2), {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  env: process.env,
  now: () => systemClock.now(),
});
