import 'reflect-metadata';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { defineTool, Wardrik, type ToolDefinition } from '../../src/index.js';
import { scriptedModel, type ScriptedCall } from '../../src/testing/index.js';

const ISSUE_SCHEMA = {
  type: 'object',
  properties: { title: { type: 'string', description: 'The issue title' } },
  required: ['title'],
  additionalProperties: false,
};

/** A catalog of many tools: GitHub's and a CRM's (deferred), and the order desk's own (sent). */
function catalog(opened: string[]): Record<string, ToolDefinition[]> {
  const filler = (prefix: string, n: number) =>
    Array.from({ length: n }, (_, i) =>
      defineTool({
        name: `${prefix}_report_${i}`,
        description: `Builds quarterly report number ${i} of ${prefix} figures.`,
        annotations: { readOnly: true },
        run: () => 'report',
      }),
    );
  return {
    shop: [
      defineTool({
        name: 'find_order',
        description: 'Finds an order.',
        annotations: { readOnly: true },
        run: () => 'o1',
      }),
    ],
    gh: [
      defineTool({
        name: 'create_issue',
        description: 'Opens a new GitHub issue in the repository.',
        input: ISSUE_SCHEMA,
        run: (args: { title: string }) => {
          opened.push(args.title);
          return 'issue #7';
        },
      }),
      defineTool({
        name: 'delete_repository',
        description: 'Deletes a GitHub repository and its issues.',
        run: () => 'gone',
      }),
      ...filler('github', 40),
    ],
    crm: filler('crm', 40),
  };
}

const names = (call: ScriptedCall) => call.tools.map((tool) => tool.name).sort();

describe('Deferred tools and the search tool', () => {
  it('sends only the search tool for them, loads what it finds, and runs the loaded tool through the gate', async () => {
    const opened: string[] = [];
    const wardrik = await Wardrik.create({
      store: 'memory:',
      recoverMs: Infinity,
      tools: catalog(opened),
      policy: {
        rules: [
          { match: 'gh/delete_*', action: 'deny' },
          { match: 'gh/create_issue', action: 'allow' },
        ],
      },
    });
    const seen: string[][] = [];
    const model = scriptedModel([
      (call) => {
        seen.push(names(call));
        return { toolCalls: [{ name: 'gh__create_issue', arguments: { title: 'too early' } }] };
      },
      (call) => {
        assert.match(call.lastToolResult ?? '', /not loaded yet.*wardrik__search_tools/);
        return { toolCalls: [{ name: 'wardrik__search_tools', arguments: { query: 'open a GitHub issue' } }] };
      },
      (call) => {
        seen.push(names(call));
        const answer = JSON.parse(call.lastToolResult ?? '{}') as { loaded: { name: string }[] };
        assert.equal(answer.loaded[0]?.name, 'gh__create_issue');
        assert.ok(
          !answer.loaded.some((tool) => tool.name === 'gh__delete_repository'),
          'a denied tool is never offered',
        );
        return { toolCalls: [{ name: 'gh__create_issue', arguments: { title: 'Mug arrived broken' } }] };
      },
      { text: 'Opened.' },
      // The next turn: its prompt holds the search's answer, so the tool is still loaded.
      (call) => {
        seen.push(names(call));
        return { text: 'Still here.' };
      },
    ]);
    const agent = wardrik.startAgent({ id: 'desk', model, tools: ['shop/*'], deferred: ['gh/*', 'crm/*'] });
    const turn = await agent.send('File an issue about the broken mug.');
    assert.equal(turn.status, 'done', turn.error);
    // The reader is sent with the defaults (labels on values); deferred tools only through the search tool.
    assert.deepEqual(seen[0], ['shop__find_order', 'wardrik__read', 'wardrik__search_tools']);
    assert.ok(seen[1]!.includes('gh__create_issue') && seen[1]!.length <= 7, seen[1]!.join(', '));
    assert.deepEqual(opened, ['Mug arrived broken'], 'the call before loading never ran');
    assert.equal((await agent.send('Anything else?')).status, 'done');
    assert.deepEqual(seen[2], seen[1]);
    await wardrik.close();
  });

  it('keeps what a search loaded when a parked turn resumes, and still asks the policy', async () => {
    const opened: string[] = [];
    const wardrik = await Wardrik.create({ store: 'memory:', recoverMs: Infinity, tools: catalog(opened) });
    const model = scriptedModel([
      { toolCalls: [{ name: 'wardrik__search_tools', arguments: { query: 'create issue' } }] },
      { toolCalls: [{ name: 'gh__create_issue', arguments: { title: 'after approval' } }] },
      (call) => {
        assert.ok(names(call).includes('gh__create_issue'), 'loaded again from the journaled answer');
        return { text: 'Done.' };
      },
    ]);
    const agent = wardrik.startAgent({ id: 'desk', model, tools: [], deferred: ['gh/*'] });
    const parked = await agent.send('File it.');
    assert.equal(parked.status, 'parked', 'create_issue is not read-only: it asks a person');
    const [item] = await wardrik.inbox.list();
    await wardrik.inbox.approve(item!.id, { by: 'dana' });
    const done = await agent.result(parked.run);
    assert.equal(done.status, 'done', done.error);
    assert.deepEqual(opened, ['after approval']);
    await wardrik.close();
  });

  it('finds the right tool in its top five for phrasings of what it does, and refuses a bad query', async () => {
    const wardrik = await Wardrik.create({ store: 'memory:', recoverMs: Infinity, tools: catalog([]) });
    const answers: string[] = [];
    const queries = ['open an issue', 'new GitHub issue', 'IssueCreate', 'delete the repository', ''];
    const model = scriptedModel([
      ...queries.map((query) => (call: ScriptedCall) => {
        if (call.lastToolResult !== undefined) answers.push(call.lastToolResult);
        return { toolCalls: [{ name: 'wardrik__search_tools', arguments: { query } }] };
      }),
      (call) => {
        answers.push(call.lastToolResult ?? '');
        return { text: 'ok' };
      },
    ]);
    const agent = wardrik.startAgent({ id: 'desk', model, tools: [], deferred: ['gh/*', 'crm/*'], maxSteps: 10 });
    assert.equal((await agent.send('search')).status, 'done');
    const loaded = (text: string) => (JSON.parse(text) as { loaded: { name: string }[] }).loaded.map((t) => t.name);
    for (const text of answers.slice(0, 3)) assert.ok(loaded(text).includes('gh__create_issue'), text);
    assert.ok(loaded(answers[3]!).includes('gh__delete_repository'), 'nothing denies it here');
    assert.match(answers[4]!, /takes \{ "query"/);
    await wardrik.close();
  });

  it('refuses deferred patterns that are not patterns, at start-up', async () => {
    const wardrik = await Wardrik.create({ store: 'memory:', recoverMs: Infinity, tools: catalog([]) });
    assert.throws(
      () => wardrik.startAgent({ id: 'a', model: scriptedModel([]), tools: [], deferred: 'gh/*' as never }),
      /deferred must be an array of patterns/,
    );
    assert.throws(
      () => wardrik.startAgent({ id: 'b', model: scriptedModel([]), tools: [], deferred: ['gh__create_issue'] }),
      /write "gh\/create_issue"/,
    );
    await wardrik.close();
  });
});

describe('Deferred tools across a restart', () => {
  it('resumes on a node whose policy now denies a loaded tool without sending it again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wardrik-deferred-'));
    const store = `sqlite:${join(dir, 'w.db')}`;
    const opened: string[] = [];
    const seen: string[][] = [];
    const script = scriptedModel([
      { toolCalls: [{ name: 'wardrik__search_tools', arguments: { query: 'open a GitHub issue' } }] },
      { toolCalls: [{ name: 'gh__create_issue', arguments: { title: 'one' } }] },
      (call) => {
        seen.push(names(call));
        return { text: 'Done.' };
      },
    ]);
    const first = await Wardrik.create({ store, recoverMs: Infinity, tools: catalog(opened) });
    const parked = await first
      .startAgent({ id: 'desk', model: script, tools: [], deferred: ['gh/*'] })
      .send('File it.');
    assert.equal(parked.status, 'parked');
    const [item] = await first.inbox.list();
    await first.close();
    // The node comes back with a policy that denies opening issues.
    const second = await Wardrik.create({
      store,
      recoverMs: Infinity,
      tools: catalog(opened),
      policy: { rules: [{ match: 'gh/create_issue', action: 'deny' }] },
    });
    const agent = second.startAgent({ id: 'desk', model: script, tools: [], deferred: ['gh/*'] });
    await second.inbox.approve(item!.id, { by: 'dana' });
    const done = await agent.result(parked.run);
    assert.equal(done.status, 'done', done.error);
    // What the search loaded comes back from its journaled answer, except the tool the policy now denies.
    assert.deepEqual(seen, [['gh__delete_repository', 'wardrik__read', 'wardrik__search_tools']]);
    await second.close();
    rmSync(dir, { recursive: true, force: true });
  });
});
