import 'reflect-metadata';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { Wardrik, type McpServerOptions, type TurnResult } from '../../src/index.js';
import { scriptedModel } from '../../src/testing/index.js';
import { startAskingHttp } from './fixtures/asking-http.js';
import { FAST, harness, sleep } from './helpers.js';
import { eventually } from '../eventually.js';

const ASKING = fileURLToPath(new URL('./fixtures/asking-server.js', import.meta.url));
const overStdio = (options: Partial<McpServerOptions> = {}): McpServerOptions => ({
  transport: { stdio: { command: process.execPath, args: [ASKING] } },
  ...options,
});

/**
 * The server's time-out in the tests whose call outlives it while a person is asked. The question must
 * arrive within it, which takes a few ms but, on a machine loaded like CI's, has taken over 300 ms.
 */
const CALL_TIMEOUT_MS = 2_000;

/** A model that calls `tool` once, then answers with the tool's result. */
const callsThenReports = (tool: string) =>
  scriptedModel([{ toolCalls: [{ name: tool }] }, (call) => ({ text: `got ${call.lastToolResult ?? 'nothing'}` })]);

/** The name the server got back, from a turn's text. */
const nameIn = (turn: TurnResult): string | undefined => /"name":"([^"]+)"/.exec(turn.text)?.[1];

describe("An agent's turn while an MCP server's question waits", () => {
  it('parks with the question over stdio; the call outlives its time-out while a person is asked, and the answer resumes the turn', async () => {
    // The person answers well after the server's time-out, which is long enough for the question to
    // arrive within it on a loaded machine.
    const h = await harness({ servers: { q: overStdio({ timeoutMs: CALL_TIMEOUT_MS }) } });
    try {
      await h.toolsChanged('q', 5);
      const agent = h.wardrik.startAgent({ id: 'helper', model: callsThenReports('q__ask'), tools: ['q/*'] });
      const parked = await agent.send('Ask the server');
      assert.equal(parked.status, 'parked', JSON.stringify(parked));
      assert.equal(parked.parked.length, 1);
      const item = await h.wardrik.inbox.get(parked.parked[0]!.inboxId);
      assert.equal(item?.kind, 'question');
      assert.equal(item?.run, parked.run);
      assert.equal(parked.parked[0]!.tool, 'q/ask');
      assert.match(parked.parked[0]!.reason, /MCP server "q" asks during a call of q\/ask/);
      await sleep(CALL_TIMEOUT_MS + 300);
      const next = agent.result(parked.run);
      await h.wardrik.inbox.answer(item!.id, { action: 'accept', content: { name: 'Ada' } });
      const done = await next;
      assert.equal(done.status, 'done', JSON.stringify(done));
      assert.equal(nameIn(done), 'Ada', done.text);
      assert.equal(h.events.filter((e) => e.type === 'tool.failed').length, 0, 'the call did not time out');
    } finally {
      await h.close();
    }
  });

  it('resumes the parked turn with a decline when nobody answers within elicitationWaitMs', async () => {
    const waitMs = CALL_TIMEOUT_MS + 500;
    const h = await harness({ servers: { q: overStdio({ timeoutMs: CALL_TIMEOUT_MS }) }, elicitationWaitMs: waitMs });
    try {
      await h.toolsChanged('q', 5);
      const agent = h.wardrik.startAgent({ id: 'helper', model: callsThenReports('q__ask'), tools: ['q/*'] });
      const parked = await agent.send('Ask the server');
      assert.equal(parked.status, 'parked', JSON.stringify(parked));
      const done = await agent.result(parked.run);
      assert.equal(done.status, 'done', JSON.stringify(done));
      assert.match(done.text, /"action":"decline"/);
      assert.match(
        (await h.wardrik.inbox.get(parked.parked[0]!.inboxId))?.by ?? '',
        new RegExp(`nobody answered within ${waitMs} ms`),
      );
    } finally {
      await h.close();
    }
  });

  it('links each question to its own call over Streamable HTTP, so concurrent turns each park on theirs', async () => {
    const server = await startAskingHttp();
    const h = await harness({
      servers: { q: { transport: { http: { url: server.url } }, timeoutMs: CALL_TIMEOUT_MS } },
    });
    try {
      await h.toolsChanged('q', 5);
      const agents = ['one', 'two', 'three'].map((id) =>
        h.wardrik.startAgent({ id, model: callsThenReports('q__ask'), tools: ['q/*'] }),
      );
      const turns = await Promise.all(agents.map((agent, i) => agent.send(`Ask, turn ${i}`)));
      for (const turn of turns) {
        assert.equal(turn.status, 'parked', JSON.stringify(turn));
        const item = await h.wardrik.inbox.get(turn.parked[0]!.inboxId);
        assert.equal(item?.kind, 'question');
        assert.equal(item?.run, turn.run, 'the question names the call it came during');
        assert.equal(item?.agent, turn.agent);
      }
      await sleep(CALL_TIMEOUT_MS + 300);
      const results = turns.map((turn, i) => agents[i]!.result(turn.run));
      // Answered in reverse order, each with its agent's name: each answer goes to its own call.
      for (const turn of [...turns].reverse())
        await h.wardrik.inbox.answer(turn.parked[0]!.inboxId, {
          action: 'accept',
          content: { name: `for-${turn.agent}` },
        });
      const done = await Promise.all(results);
      assert.deepEqual(
        done.map((turn) => turn.status),
        ['done', 'done', 'done'],
      );
      assert.deepEqual(done.map(nameIn), ['for-one', 'for-two', 'for-three']);
    } finally {
      await h.close();
      await server.close();
    }
  });

  it('links a question the server sends on its session to the one call in flight over HTTP', async () => {
    const server = await startAskingHttp();
    const h = await harness({ servers: { q: { transport: { http: { url: server.url } } } } });
    try {
      await h.toolsChanged('q', 5);
      const agent = h.wardrik.startAgent({ id: 'solo', model: callsThenReports('q__ask_unrelated'), tools: ['q/*'] });
      const parked = await agent.send('Ask');
      assert.equal(parked.status, 'parked', JSON.stringify(parked));
      assert.equal((await h.wardrik.inbox.get(parked.parked[0]!.inboxId))?.run, parked.run);
      const next = agent.result(parked.run);
      await h.wardrik.inbox.answer(parked.parked[0]!.inboxId, { action: 'accept', content: { name: 'Solo' } });
      assert.equal(nameIn(await next), 'Solo');
    } finally {
      await h.close();
      await server.close();
    }
  });

  for (const transport of ['stdio', 'http'] as const) {
    it(`links a question to no call when several are in flight and ${transport} does not say which: shown with all of them, claimed by none`, async () => {
      const server = transport === 'http' ? await startAskingHttp() : undefined;
      const h = await harness({
        servers: { q: server === undefined ? overStdio() : { transport: { http: { url: server.url } } } },
      });
      try {
        await h.toolsChanged('q', 5);
        const first = h.call('q__ask_together', { count: 2 }, { run: 'run-a' });
        const second = h.call('q__ask_together', { count: 2 }, { run: 'run-b' });
        await eventually('two questions', async () => (await h.wardrik.inbox.list()).length === 2);
        const items = await h.wardrik.inbox.list();
        for (const item of items) {
          assert.equal(item.run, 'mcp:mcp/q', 'no call is claimed');
          assert.match(
            item.reason,
            /during one of 2 calls in flight \(.*run run-a.*run run-b|during one of 2 calls in flight \(.*run run-b.*run run-a/,
          );
        }
        for (const item of items)
          await h.wardrik.inbox.answer(item.id, { action: 'accept', content: { name: 'Both' } });
        for (const answer of await Promise.all([first, second]))
          assert.equal(answer.status, 'ok', JSON.stringify(answer));
      } finally {
        await h.close();
        await server?.close();
      }
    });
  }

  it('resumes parked turns when a second Wardrik on the same SQLite file answers their questions, with turns running at once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wardrik-question-'));
    const store = `sqlite:${join(dir, 'w.db')}`;
    const server = await startAskingHttp();
    const first = await Wardrik.create({
      store,
      recoverMs: Infinity,
      mcp: { ...FAST, servers: { q: { transport: { http: { url: server.url } } } } },
    });
    const second = await Wardrik.create({ store, recoverMs: Infinity });
    try {
      await eventually(
        "the server's tools",
        () => first.tools().filter((tool) => tool.name.startsWith('q__')).length === 5,
      );
      const agents = ['north', 'south'].map((id) =>
        first.startAgent({ id, model: callsThenReports('q__ask'), tools: ['q/*'] }),
      );
      const turns = await Promise.all(agents.map((agent) => agent.send('Ask')));
      assert.deepEqual(
        turns.map((turn) => turn.status),
        ['parked', 'parked'],
      );
      const results = turns.map((turn, i) => agents[i]!.result(turn.run));
      for (const turn of turns)
        await second.inbox.answer(
          turn.parked[0]!.inboxId,
          { action: 'accept', content: { name: `by-${turn.agent}` } },
          { by: 'dana' },
        );
      const done = await Promise.all(results);
      assert.deepEqual(
        done.map((turn) => turn.status),
        ['done', 'done'],
      );
      assert.deepEqual(done.map(nameIn), ['by-north', 'by-south']);
    } finally {
      await second.close();
      await first.close();
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
