import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { scriptedModel, SCRIPTED_PREFIX, ScriptedModel } from '../../src/testing/index.js';
import { agentHarness, shopTools } from './helpers.js';

const options = { prompt: [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'hi' }] }] };

describe('The scripted model (wardrik/testing)', () => {
  it('says it is scripted in its provider, its id and every text it produces', async () => {
    const model = scriptedModel([{ text: 'Hello.' }], { name: 'demo' });
    assert.equal(model.provider, 'scripted');
    assert.equal(model.modelId, 'scripted-demo');
    assert.equal(model.specificationVersion, 'v4');
    const result = await model.doGenerate(options);
    assert.deepEqual(result.content, [{ type: 'text', text: '[scripted] Hello.' }]);
    assert.equal(SCRIPTED_PREFIX, '[scripted] ');
  });

  it('plays tool calls with JSON inputs and a tool-calls finish reason', async () => {
    const model = scriptedModel([
      { toolCalls: [{ name: 'shop__find_order', arguments: { id: 'ord_1' }, id: 'c1' }, { name: 'shop__quote' }] },
    ]);
    const result = await model.doGenerate(options);
    assert.deepEqual(result.content, [
      { type: 'tool-call', toolCallId: 'c1', toolName: 'shop__find_order', input: '{"id":"ord_1"}' },
      { type: 'tool-call', toolCallId: 'scripted-0-0', toolName: 'shop__quote', input: '{}' },
    ]);
    assert.equal(result.finishReason.unified, 'tool-calls');
  });

  it('streams the same steps through doStream', async () => {
    const model = scriptedModel([{ text: 'Streamed.' }]);
    const { stream } = await model.doStream(options);
    const parts: { type: string; delta?: string }[] = [];
    for await (const part of stream as unknown as AsyncIterable<{ type: string; delta?: string }>) parts.push(part);
    assert.deepEqual(
      parts.map((p) => p.type),
      ['stream-start', 'text-start', 'text-delta', 'text-end', 'finish'],
    );
    assert.equal(parts[2]!.delta, '[scripted] Streamed.');
  });

  it('throws a scripted error, and says so when its script runs out', async () => {
    const model = scriptedModel([{ error: 'The model is down.' }]);
    await assert.rejects(model.doGenerate(options), /^Error: \[scripted\] The model is down\.$/);
    await assert.rejects(model.doGenerate(options), /has 1 steps and was asked for step 2; add steps to its script/);
    assert.equal(model.remaining, 0);
  });

  it('computes steps from the conversation when given functions', async () => {
    const model = scriptedModel((call) => ({ text: `call ${call.index}, ${call.prompt.length} message(s)` }));
    assert.deepEqual((await model.doGenerate(options)).content, [
      { type: 'text', text: '[scripted] call 0, 1 message(s)' },
    ]);
    assert.ok(model instanceof ScriptedModel);
  });

  it('fails an agent’s turn with its scripted error, named as scripted', async () => {
    const h = await agentHarness(shopTools());
    const turn = await h.wardrik
      .startAgent({ id: 'a', model: scriptedModel([{ error: 'Boom.' }]), tools: [] })
      .send('hi');
    assert.equal(turn.status, 'failed');
    assert.equal(turn.error, 'Model "scripted:scripted-model" failed: [scripted] Boom.');
    await h.close();
  });

  it('is exported from the package as wardrik/testing', async () => {
    const testing = await import('wardrik/testing');
    assert.equal(testing.scriptedModel, scriptedModel);
  });
});
