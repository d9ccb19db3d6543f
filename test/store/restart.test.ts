import 'reflect-metadata';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { defineTool, Wardrik, type ToolContext } from '../../src/index.js';

const dir = mkdtempSync(join(tmpdir(), 'wardrik-restart-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('a Wardrik on SQLite, closed and opened again', () => {
  it('keeps the inbox, spend against the budget, remembered results and run labels', async () => {
    const store = `sqlite:${join(dir, 'wardrik.db')}`;
    let charges = 0;
    const tools = {
      t: [
        defineTool({ name: 'refund', description: 'd', annotations: { idempotent: true }, run: () => 'refunded' }),
        defineTool({
          name: 'charge',
          description: 'd',
          annotations: { idempotent: true, remember: true },
          run: (_a, ctx: ToolContext) => {
            ctx.cost(3);
            return `charge #${++charges}`;
          },
        }),
        defineTool({
          name: 'look',
          description: 'd',
          annotations: { readOnly: true },
          run: (_a, ctx: ToolContext) => ctx.labels,
        }),
        defineTool({
          name: 'web',
          description: 'd',
          annotations: { readOnly: true, labels: ['outside'] },
          run: () => 'page',
        }),
      ],
    };
    const options = {
      store,
      tools,
      policy: { rules: [{ match: 't/charge', action: 'allow' as const }] },
      recoverMs: Infinity,
    };
    const first = await Wardrik.create(options);
    const parked = await first.runner.run({ agent: 'a', run: 'r1', call: { id: 'c1', name: 't__refund' } });
    assert.equal(parked.status, 'parked');
    await first.runner.run({
      agent: 'a',
      run: 'r1',
      call: { id: 'c2', name: 't__charge' },
      idempotencyKey: 'charge-1',
      budgetUsd: 5,
    });
    await first.runner.run({ agent: 'a', run: 'r1', call: { id: 'c3', name: 't__web' } });
    await first.close();

    const second = await Wardrik.create(options);
    const [item] = await second.inbox.list();
    assert.deepEqual([item?.call, item?.tool, item?.status], ['c1', 't/refund', 'pending']);
    assert.deepEqual(await second.inbox.approve(item!.id), {
      status: 'ok',
      output: 'refunded',
      labels: ['confidential'],
    });
    const again = await second.runner.run({
      agent: 'a',
      run: 'r2',
      call: { id: 'c4', name: 't__charge' },
      idempotencyKey: 'charge-1',
      budgetUsd: 5,
    });
    assert.deepEqual(
      again,
      { status: 'ok', output: 'charge #1', labels: ['confidential'] },
      'the remembered result answers, nothing runs',
    );
    const spent = await second.runner.run({
      agent: 'a',
      run: 'r2',
      call: { id: 'c5', name: 't__charge' },
      idempotencyKey: 'charge-2',
      budgetUsd: 3,
    });
    assert.equal(
      spent.status === 'error' ? spent.code : spent.status,
      'budget_spent',
      'the $3 spent before the restart counts',
    );
    assert.deepEqual(await second.runner.run({ agent: 'a', run: 'r1', call: { id: 'c6', name: 't__look' } }), {
      status: 'ok',
      // The charge's answer (the app's own data) and the page, both read before the restart.
      output: ['confidential', 'outside'],
      labels: ['confidential'],
    });
    assert.equal(charges, 1);
    await second.close();
  });
});
