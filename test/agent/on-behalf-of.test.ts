import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigurationError, NotPermittedError } from '../../src/index.js';
import { scriptedModel } from '../../src/testing/index.js';
import { agentHarness, shopTools } from './helpers.js';

describe('An agent acting for a person (onBehalfOf)', () => {
  it('records the person as the requester of the approvals its calls ask for, who may then not answer them', async () => {
    const h = await agentHarness(shopTools(), {
      policy: { rules: [{ match: 'shop/refund', action: 'ask', approvers: ['support-leads'] }] },
    });
    const agent = h.wardrik.startAgent({
      id: 'support',
      onBehalfOf: 'ana@example.com',
      model: scriptedModel([{ toolCalls: [{ name: 'shop__refund', arguments: { id: 'ord_1' } }] }, { text: 'Done.' }]),
      tools: ['shop/*'],
    });
    const turn = await agent.send('Refund ord_1');
    assert.equal(turn.status, 'parked');
    const [parked] = turn.parked;
    const item = (await h.wardrik.inbox.get(parked!.inboxId!))!;
    assert.equal(item.requester, 'ana@example.com');
    await assert.rejects(
      h.wardrik.inbox.approve(item.id, { by: 'ana@example.com', groups: ['support-leads'] }),
      (error: unknown) =>
        error instanceof NotPermittedError && /ana@example\.com asked for this call/.test(error.message),
    );
    const answer = await h.wardrik.inbox.approve(item.id, { by: 'lee', groups: ['support-leads'] });
    assert.equal(answer.status, 'ok');
    assert.equal((await agent.result(turn.run)).status, 'done');
    await h.close();
  });

  it('refuses an onBehalfOf that names nobody, at start-up', async () => {
    const h = await agentHarness(shopTools());
    for (const onBehalfOf of ['', '   ', 'x'.repeat(201), 42])
      assert.throws(
        () =>
          h.wardrik.startAgent({
            id: 'support',
            onBehalfOf: onBehalfOf as string,
            model: scriptedModel([]),
            tools: ['shop/*'],
          }),
        (error: unknown) =>
          error instanceof ConfigurationError && /onBehalfOf is the id of the person/.test(error.message),
      );
    await h.close();
  });
});
