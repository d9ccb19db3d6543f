// The cost of reading journal JSON through its zod schema (format check, upgrade, shape) against
// JSON.parse alone, which is what the stores did before stored JSON had a format. Reads happen when a
// run is resumed or recovered and when a turn's result or history is read, not per tool call; the
// agent-loop bench (agent.bench) holds the whole turn's cost.
import { answerJson, answerOf } from '../src/store/journal-data.js';
import { stepDataOf, storedStep } from '../src/agent/turn-data.js';
import type { ModelStepData } from '../src/agent/messages.js';
import { measureInTurns, report } from './lib.js';

const answer = answerJson({
  status: 'ok',
  output: { id: 'ord_1', status: 'shipped', items: [{ sku: 'A-1', quantity: 2 }] },
  labels: ['outside'],
});
const step: ModelStepData = {
  kind: 'model',
  model: 'anthropic:claude-haiku-4-5',
  text: 'Looking the order up.',
  calls: [
    { id: 'c1', name: 'shop__find_order', input: '{"id":"ord_1"}' },
    { id: 'c2', name: 'shop__rate', input: '{"currency":"EUR"}' },
  ],
  finishReason: 'tool-calls',
  usage: { inputTokens: 1200, outputTokens: 80, cacheReadTokens: 0, cacheWriteTokens: 0 },
  usd: 0.0016,
};
const stepText = JSON.stringify(storedStep(step));

const [rawAnswer, checkedAnswer, rawStep, checkedStep] = await measureInTurns(
  [
    { name: 'call answer: JSON.parse alone', op: () => JSON.parse(answer) },
    { name: 'call answer: JSON.parse + format + zod (answerOf)', op: () => answerOf(answer, 'a call') },
    { name: 'model step: JSON.parse alone', op: () => JSON.parse(stepText) },
    {
      name: 'model step: JSON.parse + format + zod (stepDataOf)',
      op: () => stepDataOf({ run: 'r', index: 0, data: JSON.parse(stepText), createdAt: 0 }),
    },
  ],
  { perRound: 20_000 },
);
report('Reading a journaled call answer', rawAnswer!, [{ timing: checkedAnswer! }]);
report('Reading a journaled model step', rawStep!, [{ timing: checkedStep! }]);
