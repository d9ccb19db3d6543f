// A node for test/agent/spend-crash.test.ts: runs a turn of a model that costs $0.10 a step, whose
// first step calls `lookup` (read-only). With WARDRIK_CRASH_AT=tool the tool prints CRASH-POINT and
// hangs (the step and its spend were committed with the call's `started`); with WARDRIK_CRASH_AT=model
// the model's second call does (the step's spend was committed, the next one not yet incurred).
import 'reflect-metadata';
import type { LanguageModelV4CallOptions } from '@ai-sdk/provider';
import { defineTool, Wardrik } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing/index.js';
import { stopAtCrashPoint } from '../crash/kill-at-crash-point.js';

const at = process.env.WARDRIK_CRASH_AT!;
const lookup = defineTool({
  name: 'lookup',
  description: 'Looks an order up.',
  annotations: { readOnly: true },
  run: () => (at === 'tool' ? stopAtCrashPoint() : { found: 'ord_1' }),
});

class HangingModel extends ScriptedModel {
  override doGenerate(options: LanguageModelV4CallOptions): ReturnType<ScriptedModel['doGenerate']> {
    if (at === 'model' && this.calls.length === 1) return stopAtCrashPoint();
    return super.doGenerate(options);
  }
}

const wardrik = await Wardrik.create({
  store: process.env.WARDRIK_STORE!,
  recoverMs: Infinity,
  runner: { node: 'doomed' },
  tools: { shop: [lookup] },
});
const model = new HangingModel([{ text: 'Looking.', toolCalls: [{ name: 'shop__lookup', id: 'l1' }] }], {
  name: 'doomed',
  usage: { inputTokens: 1000 },
});
await wardrik
  .startAgent({ id: 'support', model, tools: ['shop/*'], price: { inputPerMTok: 100, outputPerMTok: 0 } })
  .send('Find my order');
process.stdout.write('UNREACHABLE\n');
