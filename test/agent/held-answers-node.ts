// A node for test/agent/held-answers-crash.test.ts: runs a turn whose first step calls `lookup`
// (read-only) or `note` (not safe to repeat), then prints CRASH-POINT and hangs in the model's second
// call, so the test kills this process with SIGKILL while the model would be reading the answer.
// Each run of a tool is appended to WARDRIK_RAN_LOG.
import 'reflect-metadata';
import { appendFileSync } from 'node:fs';
import type { LanguageModelV4CallOptions } from '@ai-sdk/provider';
import { defineTool, Wardrik } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing/index.js';
import { stopAtCrashPoint } from '../crash/kill-at-crash-point.js';

const log = process.env.WARDRIK_RAN_LOG!;
const tool = process.env.WARDRIK_TOOL!;
const tools = [
  defineTool({
    name: 'lookup',
    description: 'Looks an order up.',
    annotations: { readOnly: true },
    run: () => (appendFileSync(log, 'doomed:lookup\n'), { found: 'ord_1' }),
  }),
  defineTool({
    name: 'note',
    description: 'Writes a note.',
    run: () => (appendFileSync(log, 'doomed:note\n'), 'noted'),
  }),
];

/** Answers the first call from the script; the second prints the crash point and never answers. */
class HangingModel extends ScriptedModel {
  override doGenerate(options: LanguageModelV4CallOptions): ReturnType<ScriptedModel['doGenerate']> {
    if (this.calls.length === 1) {
      return stopAtCrashPoint();
    }
    return super.doGenerate(options);
  }
}

const wardrik = await Wardrik.create({
  store: process.env.WARDRIK_STORE!,
  recoverMs: Infinity,
  runner: { node: 'doomed' },
  tools: { shop: tools },
  policy: { rules: [{ match: 'shop/*', action: 'allow' }] },
});
const model = new HangingModel([{ text: 'Working.', toolCalls: [{ name: `shop__${tool}`, id: 'c1' }] }], {
  name: 'doomed',
});
await wardrik.startAgent({ id: 'support', model, tools: ['shop/*'] }).send('Do it');
process.stdout.write('UNREACHABLE\n');
