import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigurationError, defineTool, Policy, ToolResult, type PolicyInput } from '../../src/index.js';
import { counter, harness } from '../runner/helpers.js';

const input = (over: Partial<PolicyInput> = {}): PolicyInput => ({
  agent: 'a',
  run: 'r',
  tool: 'web/fetch',
  annotations: { readOnly: true, openWorld: true },
  arguments: {},
  labels: [],
  resources: [],
  ...over,
});

describe('Policy: confidential labels and tools that reach outside', () => {
  it('asks before an openWorld read once the run carries outside and a confidential label, naming the labels', async () => {
    const decision = await new Policy({ confidential: ['pii'] }).decide(input({ labels: ['pii', 'outside'] }));
    assert.deepEqual(decision, {
      action: 'ask',
      rule: 'labels: the run carries "outside" and confidential data (labelled "pii"), so a tool that reaches outside asks a person',
    });
    const tagged = await new Policy().decide(input({ labels: ['outside', 'confidential'] }));
    assert.equal(tagged.action, 'ask', '"confidential" counts without being named');
  });

  it('lets a run that only browsed keep browsing, and a run that only holds confidential data reach outside', async () => {
    const policy = new Policy({ confidential: ['pii'] });
    assert.equal((await policy.decide(input({ labels: ['outside'] }))).action, 'allow');
    assert.equal((await policy.decide(input({ labels: ['pii'] }))).action, 'allow');
    assert.equal(
      (await policy.decide(input({ labels: ['outside', 'pii'], annotations: { readOnly: true } }))).action,
      'allow',
      'a read that stays inside',
    );
  });

  it('asks whatever an allow rule says, and a deny rule still wins', async () => {
    const allowing = new Policy({ rules: [{ match: 'web/*', action: 'allow' }] });
    assert.equal((await allowing.decide(input({ labels: ['outside', 'confidential'] }))).action, 'ask');
    const denying = new Policy({ rules: [{ match: 'web/*', action: 'deny' }] });
    assert.equal((await denying.decide(input({ labels: ['outside', 'confidential'] }))).action, 'deny');
  });

  it("counts every tool whose answers are labelled outside (an untrusted MCP server's) as reaching outside, whatever its hints say", async () => {
    const echo = input({
      tool: 'everything/echo',
      annotations: { readOnly: true, openWorld: false, labels: ['outside'] },
    });
    assert.equal((await new Policy().decide({ ...echo, labels: ['outside', 'confidential'] })).action, 'ask');
  });

  it('is off with askWhenOutside: false', async () => {
    assert.equal(
      (await new Policy({ askWhenOutside: false }).decide(input({ labels: ['outside', 'confidential'] }))).action,
      'allow',
    );
  });

  it('refuses a malformed list at start-up, and "outside" as a confidential label', () => {
    assert.throws(
      () => new Policy({ confidential: 'pii' as never }),
      (error: unknown) =>
        error instanceof ConfigurationError &&
        /policy.confidential must be an array of label names/.test(error.message),
    );
    assert.throws(() => new Policy({ confidential: ['outside'] }), /marks where text came from/);
    assert.throws(
      () => new Policy({ labels: 'value' as never }),
      (error: unknown) =>
        error instanceof ConfigurationError &&
        /policy.labels must be "values" \(the default.* or "run" .*got "value"/.test(error.message),
    );
    assert.throws(
      () => new Policy({ approvalTtlMs: 0 }),
      /policy.approvalTtlMs must be a number of milliseconds above 0/,
    );
  });

  describe('through the runner', () => {
    it('parks the fetch after a confidential read and an outside page, with the labels in the reason and on the item', async () => {
      const fetched = counter();
      const h = await harness(
        [
          defineTool({
            name: 'customer',
            description: 'd',
            annotations: { readOnly: true, labels: ['pii'] },
            run: () => ({ address: '1 Elm St' }),
          }),
          defineTool({
            name: 'page',
            description: 'd',
            annotations: { readOnly: true, openWorld: true },
            run: () => new ToolResult('text', { labels: ['outside'] }),
          }),
          defineTool({
            name: 'fetch',
            description: 'd',
            annotations: { readOnly: true, openWorld: true },
            run: (args) => fetched.calls.push(args),
          }),
        ],
        { policy: { confidential: ['pii'], rules: [{ match: 't/*', action: 'allow' }] } },
      );
      // Browsing alone runs freely, any number of pages.
      assert.equal((await h.call('page')).status, 'ok');
      assert.equal((await h.call('fetch', {}, { run: 'run-1' })).status, 'ok');
      assert.equal((await h.call('customer')).status, 'ok');
      const parked = await h.call('fetch');
      assert.equal(parked.status, 'parked');
      // The app's own tools' answers count as confidential by default, besides the "pii" they say.
      assert.match(
        parked.status === 'parked' ? parked.reason : '',
        /carries "outside" and confidential data \(labelled "confidential", "pii"\)/,
      );
      const item = (await h.wardrik.inbox.list())[0];
      assert.deepEqual([...(item?.labels ?? [])].sort(), ['confidential', 'outside', 'pii']);
      assert.equal(fetched.count, 1);
      // Another run, holding only the confidential data, fetches unasked.
      assert.equal((await h.call('customer', {}, { run: 'run-2' })).status, 'ok');
      assert.equal((await h.call('fetch', {}, { run: 'run-2' })).status, 'ok');
      assert.equal(fetched.count, 2);
      await h.close();
    });
  });
});
