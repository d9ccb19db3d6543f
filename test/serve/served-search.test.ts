import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigurationError, Wardrik, type PolicyInput } from '../../src/index.js';
import { eventually } from '../eventually.js';
import { githubTools } from '../github-tools.js';
import { modernClient, orderTools, serving, type Ledger } from './helpers.js';

const SEARCH = 'wardrik__search_tools';

/** A server listing the order desk, deferring GitHub's tools; the caller is named by the `x-caller` header. */
async function catalogServer() {
  const ledger: Ledger = { refunds: [], aborted: [] };
  const opened: string[] = [];
  const s = await serving(
    {
      tools: ['**'],
      deferred: ['gh/*'],
      identify: ({ request }) => String(request?.headers['x-caller'] ?? 'anonymous'),
    },
    {
      tools: { orders: orderTools(ledger), gh: githubTools(opened) },
      policy: {
        rules: [
          { match: 'gh/delete_*', action: 'deny' },
          { match: 'gh/create_issue', action: 'allow' },
        ],
        // An intern may neither open issues nor refund.
        decide: (input: PolicyInput) =>
          input.agent === 'intern' && (input.tool === 'gh/create_issue' || input.tool === 'orders/refund')
            ? 'deny'
            : undefined,
      },
    },
  );
  return { ...s, opened };
}

const names = (tools: readonly { name: string }[]) => tools.map((tool) => tool.name).sort();
const found = (result: unknown) =>
  ((result as { structuredContent?: { found?: { name: string }[] } }).structuredContent?.found ?? []).map(
    (tool) => tool.name,
  );

describe('mcpServer with deferred tools: listed by caller, found with the search tool', () => {
  it('lists each caller only what its policy allows, and the search tool instead of the deferred ones', async () => {
    const s = await catalogServer();
    try {
      const dev = await s.client({ requestInit: { headers: { 'x-caller': 'dev' } } });
      const intern = await s.client({ requestInit: { headers: { 'x-caller': 'intern' } } });
      const listed = ['orders__find_order', 'orders__read_web', 'orders__refund', 'orders__slow', SEARCH];
      assert.deepEqual(names((await dev.listTools()).tools), listed.sort());
      assert.deepEqual(
        names((await intern.listTools()).tools),
        listed.filter((name) => name !== 'orders__refund'),
        'a caller never sees a tool its policy denies',
      );
      // Many lists at once, by both callers: each gets its own.
      const lists = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? dev : intern).listTools()));
      lists.forEach((list, i) =>
        assert.equal(
          list.tools.some((tool) => tool.name === 'orders__refund'),
          i % 2 === 0,
        ),
      );
      const modern = await modernClient(s.url, { 'x-caller': 'intern' });
      assert.deepEqual(
        names((await modern.listTools()).tools),
        listed.filter((name) => name !== 'orders__refund'),
      );
      await modern.close();
    } finally {
      await s.close();
    }
  });

  it('finds deferred tools the caller may use, lists them to its session from then on, and runs them through the gate', async () => {
    const s = await catalogServer();
    try {
      const dev = await s.client({ requestInit: { headers: { 'x-caller': 'dev' } } });
      const searched = await dev.callTool({ name: SEARCH, arguments: { query: 'open a GitHub issue' } });
      assert.equal(searched.isError, undefined);
      assert.equal(found(searched)[0], 'gh__create_issue');
      const delete_ = await dev.callTool({ name: SEARCH, arguments: { query: 'delete a repository' } });
      assert.ok(!found(delete_).includes('gh__delete_repository'), 'a denied tool is never found');
      // The session is told its list changed, and now lists what it found.
      await eventually('tools/list_changed after a search', () => dev.changes.count >= 1);
      assert.ok(names((await dev.listTools()).tools).includes('gh__create_issue'));
      const result = await dev.callTool({ name: 'gh__create_issue', arguments: { title: 'Checkout broken' } });
      assert.match(JSON.stringify(result.content), /issue #7/);
      assert.deepEqual(s.opened, ['Checkout broken']);
      // Another session found nothing: its list is the server's own.
      const other = await s.client({ requestInit: { headers: { 'x-caller': 'dev' } } });
      assert.ok(!names((await other.listTools()).tools).includes('gh__create_issue'));
    } finally {
      await s.close();
    }
  });

  it('never finds for a caller what its policy denies it, in either era; a denied call by name still does not run', async () => {
    const s = await catalogServer();
    try {
      const intern = await s.client({ requestInit: { headers: { 'x-caller': 'intern' } } });
      const searched = await intern.callTool({ name: SEARCH, arguments: { query: 'open a GitHub issue' } });
      assert.ok(!found(searched).includes('gh__create_issue'));
      const modern = await modernClient(s.url, { 'x-caller': 'intern' });
      const modernSearch = await modern.call(SEARCH, { query: 'open a GitHub issue' });
      assert.ok(!found(modernSearch).includes('gh__create_issue'));
      const byName = await modern.call('gh__create_issue', { title: 'sneaky' });
      assert.equal(byName.isError, true);
      assert.deepEqual(s.opened, []);
      // A 2026-07-28 caller the policy allows calls what it found by name (there is no session to list it to).
      const dev = await modernClient(s.url, { 'x-caller': 'dev' });
      assert.equal(found(await dev.call(SEARCH, { query: 'open a GitHub issue' }))[0], 'gh__create_issue');
      const made = await dev.call('gh__create_issue', { title: 'From 2026' });
      assert.equal(made.isError, undefined, JSON.stringify(made));
      assert.deepEqual(s.opened, ['From 2026']);
      await modern.close();
      await dev.close();
    } finally {
      await s.close();
    }
  });

  it('answers a bad query with an error the model can correct, and refuses bad deferred patterns at start-up', async () => {
    const s = await catalogServer();
    try {
      const dev = await s.client({ requestInit: { headers: { 'x-caller': 'dev' } } });
      const bad = await dev.callTool({ name: SEARCH, arguments: { query: '' } });
      assert.equal(bad.isError, true);
      assert.match(JSON.stringify(bad.content), /takes \{ \\"query\\": \\"what the tool should do\\" \}/);
    } finally {
      await s.close();
    }
    const wardrik = await Wardrik.create({ store: 'memory:', recoverMs: Infinity, tools: { gh: githubTools([]) } });
    assert.throws(
      () => wardrik.mcpServer({ tools: ['gh/*'], deferred: 'gh/*' as never }),
      (error: unknown) =>
        error instanceof ConfigurationError && /deferred is a list of tool patterns/.test(error.message),
    );
    await wardrik.close();
  });
});
