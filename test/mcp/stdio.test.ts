import 'reflect-metadata';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { annotation, type ToolsChangedEvent, type WardrikEvent } from '../../src/index.js';
import { alive, FAST, harness, lines, stdio, tempDir } from './helpers.js';
import { manualTime } from '../../src/testing/index.js';
import { manualTimeContainer } from '../manual-time-container.js';
import { eventually } from '../eventually.js';

const changes = (events: readonly WardrikEvent[], server: string): number[] =>
  events.filter((e): e is ToolsChangedEvent => e.type === 'tools.changed' && e.server === server).map((e) => e.count);

describe('MCP over stdio', () => {
  describe('when a server connects', () => {
    it("offers its tools as server__tool with the server's description and JSON Schema", async () => {
      const h = await harness({ servers: { fx: { transport: stdio() } } });
      try {
        const echo = h.wardrik.tools(['fx/echo'])[0]!;
        assert.equal(echo.name, 'fx__echo');
        assert.equal(echo.description, 'Echo the text back.');
        assert.deepEqual(echo.inputSchema, {
          type: 'object',
          properties: { text: { type: 'string' } },
          required: ['text'],
        });
        assert.deepEqual(echo.annotations, { readOnly: true, idempotent: true, gated: false, labels: ['outside'] });
        assert.equal(h.wardrik.tools(['fx/*']).length, 12);
        assert.deepEqual(changes(h.events, 'fx'), [12]);
      } finally {
        await h.close();
      }
    });

    it('offers only the tools named in only', async () => {
      const h = await harness({ servers: { fx: { transport: stdio(), only: ['echo', 'add', 'nope'] } } });
      try {
        assert.deepEqual(
          h.wardrik
            .tools(['fx/*'])
            .map((t) => t.name)
            .sort(),
          ['fx__add', 'fx__echo'],
        );
      } finally {
        await h.close();
      }
    });

    it('answers a call through the runner, labelled outside, and checks arguments against the schema first', async () => {
      const h = await harness({ servers: { fx: { transport: stdio() } } });
      try {
        assert.deepEqual(await h.call('fx__echo', { text: 'hi' }), {
          status: 'ok',
          output: 'echo: hi',
          labels: ['outside'],
        });
        const bad = await h.call('fx__echo', { text: 3 });
        assert.equal(bad.status, 'error');
        assert.equal(bad.status === 'error' && bad.code, 'invalid_arguments');
      } finally {
        await h.close();
      }
    });

    it('checks arguments of a zod 4 server (draft 2020-12 schema with $defs) instead of skipping the tool', async () => {
      const h = await harness({ servers: { fx: { transport: stdio(), trusted: true, gated: false } } });
      try {
        assert.equal(h.events.filter((e) => e.type === 'tool.skipped').length, 0);
        assert.deepEqual(await h.call('fx__add', { a: 2, b: 3 }), {
          status: 'ok',
          output: { sum: 5 },
          labels: ['confidential'],
        });
        const bad = await h.call('fx__add', { a: 'two', b: 3 });
        assert.equal(bad.status === 'error' && bad.code, 'invalid_arguments');
      } finally {
        await h.close();
      }
    });

    it("labels a trusted server's answers confidential, as the app's own data, not outside", async () => {
      const h = await harness({ servers: { fx: { transport: stdio(), trusted: true } } });
      try {
        assert.deepEqual(await h.call('fx__echo', { text: 'x' }), {
          status: 'ok',
          output: 'echo: x',
          labels: ['confidential'],
        });
      } finally {
        await h.close();
      }
    });
  });

  describe('gating', () => {
    it('parks a tool that is not read-only, and runs a read-only one', async () => {
      const h = await harness({ servers: { fx: { transport: stdio() } } });
      try {
        assert.equal((await h.call('fx__write')).status, 'parked');
        assert.equal((await h.call('fx__no_hints')).status, 'parked');
        assert.equal((await h.call('fx__echo', { text: 'a' })).status, 'ok');
      } finally {
        await h.close();
      }
    });

    it('follows the server gated option', async () => {
      const h = await harness({
        servers: { open: { transport: stdio(), gated: false }, shut: { transport: stdio(), gated: true } },
      });
      try {
        assert.equal((await h.call('open__write')).status, 'ok');
        assert.equal((await h.call('shut__echo', { text: 'a' })).status, 'parked');
      } finally {
        await h.close();
      }
    });

    it('keeps a tool of an untrusted server gated when a later tools/list claims readOnlyHint', async () => {
      const h = await harness({ servers: { fx: { transport: stdio(), gated: undefined } } });
      try {
        const entry = () => h.wardrik.runner && h.wardrik.tools(['fx/write'])[0]!;
        assert.equal(entry().annotations.gated, true);
        const from = h.mark();
        // bump_tools is gated; a policy rule lets this one call through.
        const bump = await h.wardrik.runner.run({
          agent: 'a',
          run: 'r',
          call: { id: 'b', name: 'fx__bump_tools' },
          policy: [{ match: 'fx/bump_tools', action: 'allow' }],
        });
        assert.equal(bump.status === 'ok' ? bump.status : JSON.stringify(bump), 'ok');
        await h.toolsChanged('fx', 13, from);
        assert.equal(entry().annotations.readOnly, true, 'the new hint is there');
        assert.equal(entry().annotations.gated, true, 'but the tool stays gated');
        assert.equal((await h.call('fx__write', {}, { run: 'fresh' })).status, 'parked');
      } finally {
        await h.close();
      }
    });

    it('believes a trusted server when its hints change', async () => {
      const h = await harness({ servers: { fx: { transport: stdio(), trusted: true } } });
      try {
        const from = h.mark();
        await h.wardrik.runner.run({
          agent: 'a',
          run: 'r',
          call: { id: 'b', name: 'fx__bump_tools' },
          policy: [{ match: 'fx/bump_tools', action: 'allow' }],
        });
        await h.toolsChanged('fx', 13, from);
        assert.equal(h.wardrik.tools(['fx/write'])[0]!.annotations.gated, false);
      } finally {
        await h.close();
      }
    });
  });

  describe('tools/list_changed', () => {
    it('lists the tools again, once for a burst of notifications', async () => {
      const time = manualTime(Date.now());
      const h = await harness(
        { servers: { fx: { transport: stdio(), gated: false } } },
        { container: manualTimeContainer(time) },
      );
      try {
        const from = h.mark();
        // The server sends its five notifications before the call's answer, on the same pipe.
        await h.call('fx__bump_tools');
        await time.advance(FAST.listDebounceMs! - 1);
        assert.deepEqual(changes(h.events.slice(from), 'fx'), [], 'no listing before the burst has settled');
        await time.advance(1);
        await h.toolsChanged('fx', 13, from);
        assert.ok(h.wardrik.tools(['fx/extra']).length === 1);
        // Long past any debounce: a listing still waiting has come by now, and none changed the tools again.
        await time.advance(60_000);
        // Five notifications, one change: the listing that follows them is the only one that differs.
        assert.deepEqual(changes(h.events.slice(from), 'fx'), [13]);
      } finally {
        await h.close();
      }
    });
  });

  describe('errors', () => {
    it("passes a tool's isError result to the model as the call's error, without retrying", async () => {
      const h = await harness({ servers: { fx: { transport: stdio() } } });
      try {
        const answer = await h.call('fx__fail');
        assert.equal(answer.status === 'error' && answer.code, 'failed');
        assert.equal(answer.status === 'error' && answer.message, 'it broke: the widget is missing');
        assert.equal(h.events.filter((e) => e.type === 'tool.retrying').length, 0);
      } finally {
        await h.close();
      }
    });

    it('turns a server error into Unavailable, retried for a read-only tool', async () => {
      const dir = tempDir();
      const count = join(dir, 'count');
      const h = await harness(
        { servers: { fx: { transport: stdio([], { COUNT_FILE: count }) } } },
        { runner: { retry: { attempts: 3 } } },
      );
      try {
        const answer = await h.call('fx__explode');
        assert.equal(answer.status === 'error' && answer.code, 'unavailable');
        assert.match(answer.status === 'error' ? answer.message : '', /server error: .*kaboom/);
        assert.equal(lines(count).filter((l) => l === 'explode').length, 3);
      } finally {
        await h.close();
      }
    });

    it('caps a huge result and says so', async () => {
      const h = await harness({ servers: { fx: { transport: stdio() } }, maxResultChars: 100_000 });
      try {
        const answer = await h.call('fx__huge', { chars: 3_000_000 });
        assert.equal(answer.status, 'ok');
        const output = answer.status === 'ok' ? (answer.output as string) : '';
        assert.ok(output.length < 100_200);
        assert.match(output, /it was 3000000 characters; only the first 100000 are shown/);
        assert.deepEqual(await h.call('fx__echo', { text: 'after' }), {
          status: 'ok',
          output: 'echo: after',
          labels: ['outside'],
        });
      } finally {
        await h.close();
      }
    });

    it('answers structured content as the output', async () => {
      const h = await harness({ servers: { fx: { transport: stdio() } } });
      try {
        assert.deepEqual(await h.call('fx__structured'), { status: 'ok', output: { n: 1 }, labels: ['outside'] });
      } finally {
        await h.close();
      }
    });

    it('sends the MCP cancellation when a call is stopped', async () => {
      const dir = tempDir();
      const cancel = join(dir, 'cancel');
      const started = join(dir, 'started');
      const h = await harness({
        servers: { fx: { transport: stdio([], { CANCEL_FILE: cancel, START_FILE: started }) } },
      });
      try {
        const controller = new AbortController();
        const answer = h.call('fx__slow', {}, { signal: controller.signal });
        // Stopped once the server runs it, so the cancellation has a call to stop.
        await eventually('the server to start the slow call', () => lines(started).length === 1);
        controller.abort(new Error('stop'));
        const result = await answer;
        assert.equal(result.status === 'error' && result.code, 'aborted');
        await eventually('the server to see the cancellation', () => lines(cancel).length === 1);
      } finally {
        await h.close();
      }
    });

    it('times a call that never answers out (cancelling it) and the server keeps serving', async () => {
      const dir = tempDir();
      const cancel = join(dir, 'cancel');
      const h = await harness(
        { servers: { fx: { transport: stdio([], { CANCEL_FILE: cancel }), timeoutMs: 200 } } },
        { runner: { retry: { attempts: 1 } } },
      );
      try {
        const result = await h.call('fx__slow');
        assert.equal(result.status === 'error' && result.code, 'timeout');
        await eventually('the cancellation', () => lines(cancel).length === 1);
        assert.equal((await h.call('fx__echo', { text: 'still here' })).status, 'ok');
      } finally {
        await h.close();
      }
    });

    it('never sends again a call that is not repeatable when its server dies during it', async () => {
      const dir = tempDir();
      const count = join(dir, 'count');
      const h = await harness({ servers: { fx: { transport: stdio([], { COUNT_FILE: count }), gated: false } } });
      try {
        const answer = await h.call('fx__die');
        assert.equal(answer.status === 'error' && answer.code, 'unavailable');
        assert.match(
          answer.status === 'error' ? answer.message : '',
          /connection closed during the call.*may have happened\. Do not call it again/,
        );
        await h.toolsChanged('fx', 12, h.mark());
        assert.deepEqual(
          lines(count).filter((l) => l === 'die'),
          ['die'],
        );
        assert.equal(h.events.filter((e) => e.type === 'tool.retrying').length, 0);
      } finally {
        await h.close();
      }
    });

    it('retries a read-only tool across a server restart', async () => {
      const dir = tempDir();
      const count = join(dir, 'count');
      const h = await harness({
        servers: { fx: { transport: stdio([], { COUNT_FILE: count, CRASH_ONCE_FILE: join(dir, 'crashed') }) } },
      });
      try {
        const before = h.hub().pid('fx')!;
        const answer = await h.call('fx__flaky');
        assert.deepEqual(answer, { status: 'ok', output: 'ok after restart', labels: ['outside'] });
        assert.ok(h.events.some((e) => e.type === 'tool.retrying'));
        assert.equal(lines(count).filter((l) => l === 'flaky').length, 2);
        assert.notEqual(h.hub().pid('fx'), before);
        assert.equal(alive(before), false, 'the crashed process was reaped');
      } finally {
        await h.close();
      }
    });
  });

  describe('tools.changed', () => {
    it('counts 0 while the server is down and the tools again when it is back', async () => {
      const h = await harness({ servers: { fx: { transport: stdio() } } });
      try {
        const pid = h.hub().pid('fx')!;
        const from = h.mark();
        process.kill(pid, 'SIGKILL');
        await h.toolsChanged('fx', 0, from);
        assert.equal(h.wardrik.tools(['fx/*']).length, 0);
        await h.toolsChanged('fx', 12, from);
        assert.deepEqual(changes(h.events.slice(from), 'fx'), [0, 12]);
        const event = (await h.until((e) => e.type === 'tools.changed', 1_000, from)) as ToolsChangedEvent;
        assert.equal(event.mcp, 'mcp');
        assert.equal(typeof event.time, 'number');
        await eventually('the killed process to be reaped', () => !alive(pid));
      } finally {
        await h.close();
      }
    });

    it('is on toolChanges$ too', async () => {
      const h = await harness({ servers: { fx: { transport: stdio() } } });
      try {
        const seen: number[] = [];
        const subscription = h.wardrik.toolChanges$.subscribe((e) => seen.push(e.count));
        process.kill(h.hub().pid('fx')!, 'SIGKILL');
        await eventually('two changes after the first', () => seen.length >= 3);
        subscription.unsubscribe();
        // The first is from start-up, replayed to every subscriber.
        assert.deepEqual(seen.slice(0, 3), [12, 0, 12]);
      } finally {
        await h.close();
      }
    });
  });

  describe('misbehaving servers', () => {
    it('a server that exits at start offers no tools, is retried, and holds nobody up', async () => {
      const h = await harness({
        servers: { bad: { transport: stdio(['--exit-at-start']) }, good: { transport: stdio() } },
      });
      try {
        assert.equal(h.wardrik.tools(['good/*']).length, 12);
        assert.equal(h.wardrik.tools(['bad/*']).length, 0);
        const bad = h
          .hub()
          .status()
          .find((s) => s.name === 'bad')!;
        assert.notEqual(bad.state, 'connected');
        const warning = await h.until((e) => e.type === 'warning' && e.message.includes('"bad"'));
        assert.match(warning.type === 'warning' ? warning.message : '', /exited with code 2.*refusing to start/);
        const answer = await h.call('bad__echo', { text: 'x' });
        assert.equal(answer.status === 'error' && answer.code, 'tool_not_found');
        assert.deepEqual(changes(h.events, 'bad').slice(0, 1), [0]);
      } finally {
        await h.close();
      }
    });

    it('a command that does not exist is reported and retried', async () => {
      const h = await harness({
        servers: { missing: { transport: { stdio: { command: '/nonexistent/wardrik-mcp-server' } } } },
      });
      try {
        const warning = await h.until((e) => e.type === 'warning' && e.message.includes('"missing"'));
        assert.match(warning.type === 'warning' ? warning.message : '', /ENOENT/);
        assert.equal(h.hub().status()[0]!.tools, 0);
      } finally {
        await h.close();
      }
    });

    it('a server that never answers initialize times out, and the others connect meanwhile', async () => {
      // A process that never speaks MCP: its connection attempts time out.
      const mute = { stdio: { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] } };
      // The time-out leaves room for a good server's start on a loaded machine (node with the SDK: ~0.3 s).
      const h = await harness({
        servers: { mute: { transport: mute }, good: { transport: stdio() } },
        connectTimeoutMs: 2_000,
        waitMs: 100,
      });
      try {
        await h.toolsChanged('good');
        const warning = await h.until((e) => e.type === 'warning' && e.message.includes('"mute"'));
        assert.match(warning.type === 'warning' ? warning.message : '', /timed out/i);
      } finally {
        await h.close();
      }
    });

    it('Wardrik.create does not wait for a slow server beyond waitMs (0: not at all)', async () => {
      const mute = { stdio: { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] } };
      const h = await harness({ servers: { slow: { transport: mute } }, waitMs: 0, connectTimeoutMs: 60_000 });
      try {
        assert.deepEqual(h.hub().status(), [{ name: 'slow', runtime: false, state: 'connecting', tools: 0 }]);
      } finally {
        await h.close();
      }
    });

    it('skips garbage a server prints on stdout', async () => {
      const h = await harness({ servers: { noisy: { transport: stdio(['--garbage']) } } });
      try {
        assert.equal(h.wardrik.tools(['noisy/*']).length, 12);
        assert.deepEqual(await h.call('noisy__echo', { text: 'clean' }), {
          status: 'ok',
          output: 'echo: clean',
          labels: ['outside'],
        });
      } finally {
        await h.close();
      }
    });

    it("makes a result that is not valid MCP the call's own error, keeping the connection", async () => {
      const h = await harness({ servers: { bad: { transport: stdio(['--malformed']) } } });
      try {
        const pid = h.hub().pid('bad');
        const answer = await h.call('bad__echo', { text: 'malformed' });
        assert.equal(answer.status === 'error' && answer.code, 'failed');
        assert.match(
          answer.status === 'error' ? answer.message : '',
          /^MCP server "bad" \(tool "echo"\) answered with a result that is not valid MCP \(content\[0\]: "text" is not a string\); the server needs fixing\.$/,
        );
        assert.deepEqual(await h.call('bad__echo', { text: 'fine' }), {
          status: 'ok',
          output: 'echo: fine',
          labels: ['outside'],
        });
        assert.equal(h.hub().pid('bad'), pid, 'the same process still serves');
      } finally {
        await h.close();
      }
    });

    it('drains a server flooding stderr without keeping it', async () => {
      const flooded = join(tempDir(), 'flooded');
      const h = await harness({ servers: { loud: { transport: stdio(['--flood-stderr'], { FLOOD_FILE: flooded }) } } });
      try {
        for (let i = 0; i < 20; i++) assert.equal((await h.call('loud__echo', { text: `n${i}` })).status, 'ok');
        // Far past a pipe's 64 KiB: a stderr nobody read would have stopped the server's writes long before.
        await eventually('the server to write 4 MB to stderr', () =>
          existsSync(flooded) ? Number(readFileSync(flooded, 'utf8')) >= 4_000_000 : false,
        );
        assert.equal((await h.call('loud__echo', { text: 'last' })).status, 'ok');
      } finally {
        await h.close();
      }
    });
  });

  describe('close', () => {
    it('ends and reaps every server process', async () => {
      const h = await harness({ servers: { a: { transport: stdio() }, b: { transport: stdio(['--flood-stderr']) } } });
      const pids = [h.hub().pid('a')!, h.hub().pid('b')!];
      assert.ok(pids.every(alive));
      await h.close();
      for (const pid of pids) assert.equal(alive(pid), false, `process ${pid} is gone`);
      assert.equal(h.wardrik.tools().length, 0);
    });

    it('a reconnect ends the old process before starting the next', async () => {
      const dir = tempDir();
      const h = await harness({ servers: { fx: { transport: stdio([], { CRASH_ONCE_FILE: join(dir, 'crashed') }) } } });
      try {
        const first = h.hub().pid('fx')!;
        await h.call('fx__flaky');
        const second = h.hub().pid('fx')!;
        assert.notEqual(first, second);
        assert.equal(alive(first), false);
        assert.equal(alive(second), true);
      } finally {
        await h.close();
      }
    });
  });

  describe('credentials', () => {
    it('resolves the credential at connect and gives a stdio server the secret as that environment variable', async () => {
      process.env.FIXTURE_TOKEN = 's3cret';
      try {
        const h = await harness({
          servers: { fx: { transport: stdio([], { EXPECT_TOKEN: 's3cret' }), credential: 'FIXTURE_TOKEN' } },
        });
        try {
          assert.equal(h.wardrik.tools(['fx/*']).length, 12);
          assert.ok(!JSON.stringify(h.events).includes('s3cret'));
        } finally {
          await h.close();
        }
      } finally {
        delete process.env.FIXTURE_TOKEN;
      }
    });

    it('does not connect when the credential has no value, and says which', async () => {
      const h = await harness({
        servers: { fx: { transport: stdio([], { EXPECT_TOKEN: 'x' }), credential: 'WARDRIK_TEST_NO_SUCH_SECRET' } },
      });
      try {
        const warning = await h.until((e) => e.type === 'warning' && e.message.includes('"fx"'));
        assert.match(
          warning.type === 'warning' ? warning.message : '',
          /credential "WARDRIK_TEST_NO_SUCH_SECRET" has no value/,
        );
      } finally {
        await h.close();
      }
    });
  });

  describe('annotations', () => {
    it('reads MCP hints as Wardrik annotations', async () => {
      const h = await harness({ servers: { fx: { transport: stdio() } } });
      try {
        const write = h.wardrik.runner && h.wardrik.tools(['fx/write'])[0]!;
        assert.deepEqual(write.annotations, { destructive: true, openWorld: false, gated: true, labels: ['outside'] });
        const add = h
          .hub()
          .tools({}, { servers: 'fx' })
          .find((e) => e.name === 'fx__add')!;
        assert.equal(annotation(add.tool, 'idempotent'), true);
        assert.equal(annotation(add.tool, 'readOnly'), undefined);
      } finally {
        await h.close();
      }
    });
  });
});
