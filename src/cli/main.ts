#!/usr/bin/env node
// The `wardrik` command: answer parked calls and look into runs, tools and MCP servers in a store.
import 'reflect-metadata';
import { systemClock } from '../clock.js';
import { runCli } from './program.js';

process.exitCode = await runCli(process.argv.slice(2), {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  env: process.env,
  now: () => systemClock.now(),
});
