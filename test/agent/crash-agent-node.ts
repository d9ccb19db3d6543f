// A node for test/agent/crash.test.ts: starts a turn whose tool call prints CRASH-POINT and hangs, so
// the test kills this process with SIGKILL after the model's first response was journaled.
import 'reflect-metadata';
import { defineTool, Wardrik } from '../../src/index.js';
import { scriptedModel } from '../../src/testing/index.js';
import { stopAtCrashPoint } from '../crash/kill-at-crash-point.js';

const lookup = defineTool({
  name: 'lookup',
  description: 'Looks an order up.',
  annotations: { readOnly: true },
  run: () => {
    return stopAtCrashPoint();
  },
});
const wardrik = await Wardrik.create({
  store: process.env.WARDRIK_STORE!,
  recoverMs: Infinity,
  runner: { node: 'doomed' },
  tools: { shop: [lookup] },
});
const model = scriptedModel([{ text: 'Looking.', toolCalls: [{ name: 'shop__lookup', id: 'l1' }] }], {
  name: 'doomed',
});
await wardrik.startAgent({ id: 'support', model, tools: ['shop/*'] }).send('Find my order');
process.stdout.write('UNREACHABLE\n');
