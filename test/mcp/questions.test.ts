import 'reflect-metadata';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import type { McpServerOptions, ToolAnswer } from '../../src/index.js';
import { harness, type Harness } from './helpers.js';
import { eventually } from '../eventually.js';
import { manualTimeContainer } from '../manual-time-container.js';
import { manualTime } from '../../src/testing/index.js';

const ASKING = fileURLToPath(new URL('./fixtures/asking-server.js', import.meta.url));
const asking = (options: Partial<McpServerOptions> = {}): McpServerOptions => ({
  transport: { stdio: { command: process.execPath, args: [ASKING] } },
  ...options,
});

/** Waits for the one pending question and returns it. */
async function question(h: Harness, count = 1) {
  await eventually(
    'the question in the inbox',
    async () => (await h.wardrik.inbox.list()).filter((item) => item.kind === 'question').length === count,
  );
  return (await h.wardrik.inbox.list()).filter((item) => item.kind === 'question');
}

const output = (answer: ToolAnswer): unknown => {
  assert.equal(answer.status, 'ok', JSON.stringify(answer));
  return answer.status === 'ok' ? JSON.parse(answer.output as string) : undefined;
};

describe("An MCP server's questions (elicitation)", () => {
  it('become an inbox item naming the server, the call, the message and the schema; an accepted answer gets the defaults', async () => {
    const h = await harness({ servers: { q: asking() } });
    try {
      await h.toolsChanged('q', 5);
      const calling = h.call('q__ask', {}, { run: 'r-ask' });
      const [item] = await question(h);
      assert.equal(item!.tool, 'q/ask');
      assert.equal(item!.run, 'r-ask');
      assert.match(item!.reason, /MCP server "q" asks during a call of q\/ask: Which name, and how many\?/);
      assert.deepEqual(item!.labels, ['outside']);
      assert.deepEqual((item!.detail as { requestedSchema: { required: string[] } }).requestedSchema.required, [
        'name',
      ]);
      const answered = await h.wardrik.inbox.answer(
        item!.id,
        { action: 'accept', content: { name: 'Ada' } },
        { by: 'ann' },
      );
      assert.deepEqual(answered.status === 'ok' && answered.output, {
        action: 'accept',
        content: { name: 'Ada', count: 3, urgent: false },
      });
      assert.deepEqual(output(await calling), { action: 'accept', content: { name: 'Ada', count: 3, urgent: false } });
      assert.equal((await h.wardrik.inbox.get(item!.id))!.by, 'ann');
    } finally {
      await h.close();
    }
  });

  it('refuses content that does not fit the schema, naming the field, and sends nothing until a fitting answer', async () => {
    const h = await harness({ servers: { q: asking() } });
    try {
      await h.toolsChanged('q', 5);
      const calling = h.call('q__ask');
      const [item] = await question(h);
      await assert.rejects(
        h.wardrik.inbox.answer(item!.id, { action: 'accept', content: { count: 2 } }),
        /field "name"/,
      );
      await assert.rejects(
        h.wardrik.inbox.answer(item!.id, { action: 'accept', content: { name: 'Bo', count: 'many' } }),
        /field "count"/,
      );
      await assert.rejects(h.wardrik.inbox.answer(item!.id, { action: 'maybe' }), /"action":"accept"/);
      assert.equal((await h.wardrik.inbox.get(item!.id))!.status, 'pending');
      await h.wardrik.inbox.answer(item!.id, { action: 'decline' });
      assert.deepEqual(output(await calling), { action: 'decline' });
    } finally {
      await h.close();
    }
  });

  it('asks URL-mode questions with the URL to open, and denying one declines it', async () => {
    const h = await harness({ servers: { q: asking() } });
    try {
      await h.toolsChanged('q', 5);
      const calling = h.call('q__ask_url');
      const [item] = await question(h);
      assert.equal((item!.detail as { url: string }).url, 'https://auth.example.com/connect?state=1');
      await h.wardrik.inbox.deny(item!.id, { reason: 'not now' });
      assert.deepEqual(output(await calling), { action: 'decline' });
    } finally {
      await h.close();
    }
  });

  it('declines a question nobody answers within elicitationWaitMs, and the item says so', async () => {
    const time = manualTime(Date.now());
    const h = await harness(
      { servers: { q: asking() }, elicitationWaitMs: 300 },
      { container: manualTimeContainer(time) },
    );
    try {
      await h.toolsChanged('q', 5);
      const calling = h.call('q__ask');
      const parked = await h.until((e) => e.type === 'tool.parked' && e.kind === 'question');
      await time.advance(299);
      const waiting = await h.wardrik.inbox.get((parked as { inboxId: string }).inboxId);
      assert.equal(waiting!.status, 'pending', 'still asked a moment before elicitationWaitMs');
      await time.advance(1);
      assert.deepEqual(output(await calling), { action: 'decline' });
      const item = await h.wardrik.inbox.get((parked as { inboxId: string }).inboxId);
      assert.equal(item!.status, 'answered');
      assert.match(item!.by ?? '', /nobody answered within 300 ms/);
      await assert.rejects(
        h.wardrik.inbox.answer(item!.id, { action: 'accept', content: { name: 'late' } }),
        /already answered/,
      );
    } finally {
      await h.close();
    }
  });

  it('keeps questions of concurrent calls apart, each answered on its own', async () => {
    const h = await harness({ servers: { q: asking() } });
    try {
      await h.toolsChanged('q', 5);
      const one = h.call('q__ask', {}, { run: 'r1' });
      const two = h.call('q__ask', {}, { run: 'r2' });
      const items = await question(h, 2);
      for (const item of items)
        await h.wardrik.inbox.answer(item.id, { action: 'accept', content: { name: `n-${item.id.slice(0, 4)}` } });
      const answers = [output(await one), output(await two)] as { content: { name: string } }[];
      assert.deepEqual(
        answers.map((a) => a.content.name).sort(),
        items.map((item) => `n-${item.id.slice(0, 4)}`).sort(),
      );
    } finally {
      await h.close();
    }
  });

  it("declines at once with elicitation: 'decline', and offers no elicitation with false", async () => {
    const h = await harness({ servers: { d: asking({ elicitation: 'decline' }), n: asking({ elicitation: false }) } });
    try {
      await h.toolsChanged('d', 5);
      await h.toolsChanged('n', 5);
      assert.deepEqual(output(await h.call('d__ask')), { action: 'decline' });
      const refused = await h.call('n__ask');
      assert.ok(
        refused.status === 'error' && /no answer: .*Method not found/.test(refused.message),
        JSON.stringify(refused),
      );
      assert.equal(h.events.filter((e) => e.type === 'tool.parked').length, 0);
    } finally {
      await h.close();
    }
  });
});
