import 'reflect-metadata';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { context, trace, TraceFlags } from '@opentelemetry/api';
import type { ToolAnswer } from '../../src/index.js';
import { startModernHttp } from './fixtures/modern-http.js';
import { harness, lines, tempDir, type Harness } from './helpers.js';
import { StorageContextManager } from './storage-context.js';
import { eventually } from '../eventually.js';

const MODERN_STDIO = fileURLToPath(new URL('./fixtures/modern-stdio.js', import.meta.url));
const STRICT_STDIO = fileURLToPath(new URL('./fixtures/strict-start-server.js', import.meta.url));
const modernStdio = { stdio: { command: process.execPath, args: [MODERN_STDIO] } };

const ok = (answer: ToolAnswer): unknown => {
  assert.equal(answer.status, 'ok', JSON.stringify(answer));
  return answer.status === 'ok' ? answer.output : undefined;
};

/** Waits for `count` pending questions and returns them. */
async function questions(h: Harness, count = 1) {
  await eventually(
    `${count} questions in the inbox`,
    async () =>
      (await h.wardrik.inbox.list()).filter((item) => item.kind === 'question' && item.status === 'pending').length ===
      count,
  );
  return (await h.wardrik.inbox.list()).filter((item) => item.kind === 'question' && item.status === 'pending');
}

describe('A 2026-07-28 MCP server (SDK v2 McpServer) over Streamable HTTP', () => {
  it('is spoken to in its own era: server/discover, no initialize, and calls answered', async () => {
    const fixture = await startModernHttp();
    const h = await harness({ servers: { m: { transport: { http: { url: fixture.url } } } } });
    try {
      await h.toolsChanged('m', 6);
      const answers = await Promise.all(['a', 'b', 'c'].map((text) => h.call('m__echo', { text })));
      assert.deepEqual(answers.map(ok), ['echo: a', 'echo: b', 'echo: c']);
      assert.ok(fixture.methods.includes('server/discover'), fixture.methods.join());
      assert.equal(fixture.methods.includes('initialize'), false, fixture.methods.join());
      assert.ok(fixture.methods.includes('subscriptions/listen'), fixture.methods.join());
    } finally {
      await h.close();
      await fixture.close();
    }
  });

  it('hears tools/list_changed on its subscriptions/listen stream and lists the tools again', async () => {
    const fixture = await startModernHttp();
    const h = await harness({ servers: { m: { transport: { http: { url: fixture.url } }, gated: false } } });
    try {
      await h.toolsChanged('m', 6);
      const from = h.mark();
      ok(await h.call('m__grow'));
      await h.toolsChanged('m', 7, from);
      assert.equal(ok(await h.call('m__grown')), 'here');
    } finally {
      await h.close();
      await fixture.close();
    }
  });

  it('sends x-mcp-header arguments as Mcp-Param-* headers, and never calls a tool that declares one wrongly', async () => {
    const fixture = await startModernHttp();
    const h = await harness({ servers: { m: { transport: { http: { url: fixture.url } } } } });
    try {
      const skipped = h.until((e) => e.type === 'tool.skipped' && e.tool === 'misdeclared');
      await h.toolsChanged('m', 6);
      const event = await skipped;
      assert.match(
        event.type === 'tool.skipped' ? event.reason : '',
        /x-mcp-header "Data" on a "object" property; only string, integer and boolean ones may/,
      );
      assert.deepEqual(h.wardrik.tools(['m/misdeclared']), []);
      const routed = await Promise.all(['eu-west', 'Köln '].map((region) => h.call('m__route', { region })));
      assert.deepEqual(routed.map(ok), ['routed to eu-west', 'routed to Köln ']);
      // Not plain ASCII (or space at an end): base64 between the sentinels. The server checked both.
      assert.deepEqual(fixture.state.regionHeaders.sort(), [
        `=?base64?${Buffer.from('Köln ').toString('base64')}?=`,
        'eu-west',
      ]);
      assert.equal(fixture.state.runs.get('misdeclared'), undefined);
    } finally {
      await h.close();
      await fixture.close();
    }
  });

  it('answers a call in doubt when its answer is lost on the way, and never sends it again, calls at once', async () => {
    const fixture = await startModernHttp();
    fixture.dropAnswersOf.add('charge');
    const h = await harness({ servers: { m: { transport: { http: { url: fixture.url } }, gated: false } } });
    try {
      await h.toolsChanged('m', 6);
      const [charges, echoes] = await Promise.all([
        Promise.all([1, 2, 3, 4].map((cents) => h.call('m__charge', { cents }, { run: `r-charge-${cents}` }))),
        Promise.all(['x', 'y'].map((text) => h.call('m__echo', { text }, { run: 'r-echo' }))),
      ]);
      for (const answer of charges) {
        assert.equal(answer.status, 'error', JSON.stringify(answer));
        assert.match(
          answer.status === 'error' ? answer.message : '',
          /the answer was lost .*Do not call it again: a repeat could do it twice/,
        );
      }
      // Each ran once at the server: the runner did not retry, and the hub did not re-issue them.
      assert.equal(fixture.state.runs.get('charge'), 4);
      assert.deepEqual(echoes.map(ok), ['echo: x', 'echo: y']);
      // The connection is fine: the next call goes through.
      fixture.dropAnswersOf.clear();
      assert.match(String(ok(await h.call('m__charge', { cents: 5 }, { run: 'r-after' }))), /charged 5 \(run 5\)/);
    } finally {
      await h.close();
      await fixture.close();
    }
  });

  it("parks a server's input_required question in the inbox and retries with the answer and its requestState", async () => {
    const fixture = await startModernHttp();
    const h = await harness({ servers: { m: { transport: { http: { url: fixture.url } } } } });
    try {
      await h.toolsChanged('m', 6);
      const calls = [h.call('m__greet', {}, { run: 'r-1' }), h.call('m__greet', {}, { run: 'r-2' })];
      const items = await questions(h, 2);
      // No request waits at the server while a person thinks: each asking round was answered at once.
      assert.deepEqual(fixture.state.greetings, [
        { state: undefined, answered: false },
        { state: undefined, answered: false },
      ]);
      for (const item of items) {
        assert.equal(item.tool, 'm/greet');
        assert.match(item.reason, /MCP server "m" asks during a call of m\/greet: What is your name\?/);
        assert.deepEqual(item.labels, ['outside']);
      }
      const byRun = new Map(items.map((item) => [item.run, item]));
      await h.wardrik.inbox.answer(byRun.get('r-2')!.id, { action: 'accept', content: { name: 'Bo' } });
      await h.wardrik.inbox.answer(byRun.get('r-1')!.id, { action: 'accept', content: { name: 'Ada' } });
      assert.deepEqual((await Promise.all(calls)).map(ok), [
        'hello Ada (state asked-for-name)',
        'hello Bo (state asked-for-name)',
      ]);
      assert.equal(fixture.state.runs.get('greet'), 2);
    } finally {
      await h.close();
      await fixture.close();
    }
  });

  it('declines its questions under elicitation: decline, and stops a server that asks round after round', async () => {
    const fixture = await startModernHttp();
    const h = await harness({
      servers: { m: { transport: { http: { url: fixture.url } }, elicitation: 'decline' } },
    });
    try {
      await h.toolsChanged('m', 6);
      const answer = await h.call('m__greet');
      assert.equal(answer.status, 'error', JSON.stringify(answer));
      assert.match(answer.status === 'error' ? answer.message : '', /still asked for input after 10 rounds/);
      // The first ask and ten retries, each declined at once; nothing reached the inbox.
      assert.equal(fixture.state.greetings.length, 11);
      assert.deepEqual(
        fixture.state.greetings.slice(1).map((g) => g.state),
        Array(10).fill('asked-for-name'),
      );
      assert.deepEqual(await h.wardrik.inbox.list(), []);
    } finally {
      await h.close();
      await fixture.close();
    }
  });

  it('sends the current span as traceparent in the request _meta', async () => {
    // What an app's tracing SDK installs: a context that follows async calls.
    const manager = new StorageContextManager();
    assert.ok(context.setGlobalContextManager(manager));
    const fixture = await startModernHttp();
    const h = await harness({ servers: { m: { transport: { http: { url: fixture.url } } } } });
    try {
      await h.toolsChanged('m', 6);
      assert.equal(ok(await h.call('m__trace')), 'none', 'no span, no traceparent');
      const span = trace.wrapSpanContext({
        traceId: '0af7651916cd43dd8448eb211c80319c',
        spanId: 'b7ad6b7169203331',
        traceFlags: TraceFlags.SAMPLED,
      });
      const answer = await context.with(trace.setSpan(context.active(), span), () => h.call('m__trace'));
      assert.equal(ok(answer), '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01');
    } finally {
      context.disable();
      await h.close();
      await fixture.close();
    }
  });
});

describe('A 2025-11-25 stdio server that exits on a request before initialize (as Rust SDK servers do)', () => {
  it('is started again at once and connected with the 2025 handshake, without a warning', async () => {
    const starts = join(tempDir(), 'starts');
    const h = await harness({
      servers: {
        r: { transport: { stdio: { command: process.execPath, args: [STRICT_STDIO], env: { STARTS_FILE: starts } } } },
      },
    });
    try {
      await h.toolsChanged('r', 1);
      assert.equal(ok(await h.call('r__echo', { text: 'hi' })), 'echo: hi');
      // One start ended by the probe, one that stays.
      assert.deepEqual(lines(starts), ['start', 'start']);
      assert.deepEqual(
        h.events.filter((e) => e.type === 'warning'),
        [],
      );
    } finally {
      await h.close();
    }
  });
});

describe('A 2026-07-28 MCP server (SDK v2 serveStdio) over stdio', () => {
  it('is spoken to in its own era: calls, list changes on subscriptions/listen, and input_required questions', async () => {
    const h = await harness({ servers: { s: { transport: modernStdio, gated: false } } });
    try {
      await h.toolsChanged('s', 7);
      assert.deepEqual(
        (await Promise.all(['a', 'b'].map((text) => h.call('s__echo', { text }, { run: 'r-echo' })))).map(ok),
        ['echo: a', 'echo: b'],
      );
      const from = h.mark();
      ok(await h.call('s__grow', {}, { run: 'r-grow' }));
      await h.toolsChanged('s', 8, from);
      const greeting = h.call('s__greet', {}, { run: 'r-g' });
      const [item] = await questions(h);
      assert.equal(item!.run, 'r-g');
      await h.wardrik.inbox.answer(item!.id, { action: 'accept', content: { name: 'Cy' } });
      assert.equal(ok(await greeting), 'hello Cy (state asked-for-name)');
      assert.deepEqual(JSON.parse(String(ok(await h.call('s__runs')))), { echo: 2, greet: 1 });
    } finally {
      await h.close();
    }
  });
});
