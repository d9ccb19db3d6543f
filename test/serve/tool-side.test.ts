import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { callTool, defineTool, ToolResult, Wardrik, type LogLevel } from '../../src/index.js';
import { CallContext } from '../../src/runner/call-context.js';
import { ToolCatalog } from '../../src/tools/catalog.js';

describe('ctx.progress and ctx.log', () => {
  const reported = () => {
    const seen: unknown[][] = [];
    const ctx = new CallContext('a', 'r', 'c', 1, 'r:c', [], {
      progress: (...args) => void seen.push(['progress', ...args]),
      log: (...args) => void seen.push(['log', ...args]),
    });
    return { ctx, seen };
  };

  it("reach the call's reporter", () => {
    const { ctx, seen } = reported();
    ctx.progress(3, 10, 'three');
    ctx.log('warning', { disk: 'full' });
    assert.deepEqual(seen, [
      ['progress', 3, 10, 'three'],
      ['log', 'warning', { disk: 'full' }],
    ]);
  });

  it('refuse a bad amount or level, naming it', () => {
    const { ctx } = reported();
    assert.throws(() => ctx.progress(-1), /progress\(progress\) takes a finite number/);
    assert.throws(() => ctx.progress(1, Number.NaN), /progress\(progress, total\)/);
    assert.throws(() => ctx.log('loud' as LogLevel, 'x'), /log\(level, data\) takes one of debug, info/);
  });

  it('report nothing once the attempt is stopped', () => {
    const { ctx, seen } = reported();
    ctx.abort(new Error('time-out'));
    ctx.progress(1);
    ctx.log('info', 'late');
    assert.deepEqual(seen, []);
  });

  it('are no-ops without a reporter, in a bare callTool too', async () => {
    new CallContext('a', 'r', 'c', 1, 'r:c', []).progress(1);
    const tool = defineTool({
      name: 't',
      description: 'Reports.',
      run: (_args, ctx) => (ctx.progress(1, 2), ctx.log('info', 'hi'), 'done'),
    });
    assert.deepEqual(await callTool([tool], { name: 't' }), { status: 'ok', output: 'done', labels: ['confidential'] });
  });

  it("reach the reporter a runner call was given, from the tool's own code", async () => {
    const tool = defineTool({
      name: 't',
      description: 'Reports.',
      annotations: { readOnly: true },
      run: (_args, ctx) => (ctx.progress(1, 2), 'done'),
    });
    const wardrik = await Wardrik.create({ store: 'memory:', recoverMs: Infinity, tools: { x: [tool] } });
    try {
      const seen: number[] = [];
      await wardrik.runner.run({
        agent: 'a',
        run: 'r',
        call: { id: 'c', name: 'x__t' },
        reporter: { progress: (p) => void seen.push(p), log: () => {} },
      });
      assert.deepEqual(seen, [1]);
    } finally {
      await wardrik.close();
    }
  });
});

describe('tool.progress and tool.log events', () => {
  it("report a call's ctx.progress and ctx.log to whoever watches events$, with the caller's reporter still told", async () => {
    const tool = defineTool({
      name: 't',
      description: 'Reports.',
      annotations: { readOnly: true },
      run: (_args, ctx) => (ctx.progress(1, 2, 'half'), ctx.log('info', 'hi'), 'done'),
    });
    const wardrik = await Wardrik.create({ store: 'memory:', recoverMs: Infinity, tools: { x: [tool] } });
    const events: { type: string }[] = [];
    const subscription = wardrik.events$.subscribe((event) => events.push(event));
    try {
      const seen: number[] = [];
      await wardrik.runner.run({
        agent: 'a',
        run: 'r',
        call: { id: 'c', name: 'x__t' },
        reporter: { progress: (p) => void seen.push(p), log: () => {} },
      });
      assert.deepEqual(seen, [1]);
      const reports = events
        .filter((event) => event.type === 'tool.progress' || event.type === 'tool.log')
        .map(({ time: _time, ...event }: { type: string; time?: number }) => event);
      assert.deepEqual(reports, [
        { type: 'tool.progress', agent: 'a', run: 'r', call: 'c', tool: 'x/t', progress: 1, total: 2, message: 'half' },
        { type: 'tool.log', agent: 'a', run: 'r', call: 'c', tool: 'x/t', level: 'info', data: 'hi' },
      ]);
    } finally {
      subscription.unsubscribe();
      await wardrik.close();
    }
  });
});

describe('ToolResult content parts', () => {
  it('keep the parts for MCP clients and give models their text', async () => {
    const tool = defineTool({
      name: 'pic',
      description: 'A picture.',
      run: () =>
        new ToolResult(undefined, {
          content: [
            { type: 'text', text: 'A chart:' },
            { type: 'image', data: 'aGk=', mimeType: 'image/png' },
            { type: 'resource', resource: { uri: 'file:///r.txt', text: 'raw data' } },
          ],
        }),
    });
    const answer = await callTool([tool], { name: 'pic' });
    assert.equal(answer.status, 'ok');
    assert.equal(answer.status === 'ok' && answer.output, 'A chart:\n[image image/png]\nraw data');
    assert.equal(answer.status === 'ok' && answer.content?.length, 3);
  });

  it('refuses a part that is not MCP content, naming its index', () => {
    assert.throws(
      () =>
        new ToolResult(undefined, { content: [{ type: 'text', text: 'ok' }, { type: 'image', data: 'x' } as never] }),
      /content\[1\] is not an MCP content part/,
    );
  });
});

describe('A tool whose input schema declares draft 2020-12', () => {
  it('is registered and its arguments are checked, with its $schema kept for clients', async () => {
    const tool = defineTool({
      name: 'addr',
      description: 'Takes an address.',
      input: {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        $defs: { a: { type: 'string' } },
        properties: { city: { $ref: '#/$defs/a' } },
        additionalProperties: false,
      },
      run: (args: { city: string }) => args.city,
    });
    const catalog = new ToolCatalog();
    assert.deepEqual(catalog.set('x', [tool]), []);
    assert.equal(catalog.get('x/addr')!.tool.inputSchema.$schema, 'https://json-schema.org/draft/2020-12/schema');
    assert.equal((await callTool([tool], { name: 'addr', arguments: { city: 7 } })).status, 'error');
    assert.equal((await callTool([tool], { name: 'addr', arguments: { city: 'Oslo' } })).status, 'ok');
  });
});

describe('ToolCatalog.onChange', () => {
  it('tells listeners of each change until they unsubscribe', () => {
    const catalog = new ToolCatalog();
    let changes = 0;
    const stop = catalog.onChange(() => void changes++);
    const tool = defineTool({ name: 't', description: 'T.', run: () => 1 });
    catalog.set('x', [tool]);
    assert.ok(changes >= 1);
    const after = changes;
    catalog.delete('x');
    assert.equal(changes, after + 1);
    catalog.delete('x'); // nothing there: no change
    assert.equal(changes, after + 1);
    stop();
    catalog.set('y', [tool]);
    assert.equal(changes, after + 1);
  });
});
