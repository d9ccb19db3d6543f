// Per tool call: Wardrik's turn loop against the AI SDK's generateText loop (stopWhen: stepCountIs(n)),
// over the same fake LanguageModelV3 (MockLanguageModelV3 from ai/test) and the same trivial tool, at 10
// and 50 steps, in one process. Issue 5 targets: ≤ 0.5x the AI SDK per tool call with the memory store,
// and per-call cost at 50 steps ≤ 1.2x that at 10 (no re-scanning of history). The SQLite-journaled
// figure is printed beside it.
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { aiSdkLoop, wardrikLoop } from './agent-loop.js';
import { format, measure, report, type Timing } from './lib.js';

const perCall = (timing: Timing, steps: number, name: string): Timing => ({ name, ns: timing.ns / steps });
const dir = mkdtempSync(join(tmpdir(), 'wardrik-bench-'));
const results = new Map<string, Timing>();
try {
  for (const steps of [10, 50]) {
    const perRound = steps === 10 ? 100 : 20;
    const ai = perCall(
      await measure(`AI SDK generateText, ${steps} steps`, aiSdkLoop(steps), { perRound }),
      steps,
      `AI SDK generateText, per tool call (${steps} steps)`,
    );
    const [memory, memoryOp] = await wardrikLoop('memory:', steps, 'memory');
    const ours = perCall(
      await measure(`Wardrik turn, memory, ${steps} steps`, memoryOp, { perRound }),
      steps,
      `Wardrik turn, memory store, per tool call (${steps} steps)`,
    );
    await memory.close();
    const [sqlite, sqliteOp] = await wardrikLoop(`sqlite:${join(dir, `bench-${steps}.db`)}`, steps, 'sqlite');
    const journaled = perCall(
      await measure(`Wardrik turn, sqlite, ${steps} steps`, sqliteOp, {
        perRound: Math.max(2, perRound / 5),
        rounds: 7,
      }),
      steps,
      `Wardrik turn, SQLite store, per tool call (${steps} steps)`,
    );
    await sqlite.close();
    report(`Agent turn loop, per tool call, ${steps} steps`, ai, [
      { timing: ours, target: 0.5 },
      { timing: journaled },
    ]);
    results.set(`ai-${steps}`, ai);
    results.set(`memory-${steps}`, ours);
    results.set(`sqlite-${steps}`, journaled);
  }
  const at10 = results.get('memory-10')!;
  report(
    'Per tool call at 50 steps against 10 (no re-scanning of history)',
    { ...at10, name: `Wardrik, memory, per call at 10 steps` },
    [
      { timing: { ...results.get('memory-50')!, name: 'Wardrik, memory, per call at 50 steps' }, target: 1.2 },
      {
        timing: {
          ...results.get('ai-50')!,
          name: `AI SDK, per call at 50 steps (vs its 10: ${(results.get('ai-50')!.ns / results.get('ai-10')!.ns).toFixed(2)}x)`,
        },
      },
    ],
  );
  console.log(
    `\n  SQLite per call: ${format(results.get('sqlite-10')!.ns)} at 10 steps, ${format(results.get('sqlite-50')!.ns)} at 50 steps.`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
