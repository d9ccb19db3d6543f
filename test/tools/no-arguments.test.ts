import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ConfigurationError,
  defineTool,
  NoArguments,
  ReadOnly,
  Tool,
  Toolset,
  Wardrik,
  type ToolContext,
} from '../../src/index.js';

@Toolset('cache')
class CacheTools {
  readonly seen: { args: unknown; agent: string; run: string }[] = [];

  @Tool({ description: 'Refresh the cache for the calling agent.' })
  @ReadOnly()
  refresh(args: NoArguments, ctx: ToolContext) {
    this.seen.push({ args, agent: ctx.agent, run: ctx.run });
    return `refreshed for ${ctx.agent}`;
  }
}

class Empty {}

describe('A tool that takes no arguments but needs its context', () => {
  it('declares its parameter as NoArguments: the model sees no properties, and the tool gets its context', async () => {
    const wardrik = await Wardrik.create({ store: 'memory:', recoverMs: Infinity, toolsets: [CacheTools] });
    try {
      const [info] = wardrik.tools(['cache/*']);
      assert.deepEqual(info?.inputSchema, { type: 'object', properties: {}, additionalProperties: false });
      const answer = await wardrik.runner.run({
        agent: 'ops',
        run: 'r1',
        call: { id: 'c1', name: 'cache__refresh', arguments: {} },
      });
      assert.deepEqual(answer.status === 'ok' ? answer.output : answer, 'refreshed for ops');
      // No arguments at all is the same as an empty object.
      const bare = await wardrik.runner.run({ agent: 'ops', run: 'r1', call: { id: 'c2', name: 'cache__refresh' } });
      assert.equal(bare.status, 'ok');
      const tools = wardrik.container.resolve(CacheTools);
      assert.deepEqual(
        tools.seen.map((s) => [s.args, s.agent, s.run]),
        [
          [{}, 'ops', 'r1'],
          [{}, 'ops', 'r1'],
        ],
      );
    } finally {
      await wardrik.close();
    }
  });

  it('refuses an argument the model sends anyway, without running the tool', async () => {
    const wardrik = await Wardrik.create({ store: 'memory:', recoverMs: Infinity, toolsets: [CacheTools] });
    try {
      const answer = await wardrik.runner.run({
        agent: 'ops',
        run: 'r2',
        call: { id: 'c1', name: 'cache__refresh', arguments: { force: true } },
      });
      assert.equal(answer.status, 'error');
      assert.equal(answer.status === 'error' ? answer.code : '', 'invalid_arguments');
      assert.equal(wardrik.container.resolve(CacheTools).seen.length, 0);
    } finally {
      await wardrik.close();
    }
  });

  it('takes NoArguments as the input of defineTool and @Tool too', async () => {
    const tool = defineTool({
      name: 'ping',
      description: 'Say pong.',
      input: NoArguments,
      run: (_args: NoArguments, ctx: ToolContext) => `pong ${ctx.agent}`,
    });
    assert.deepEqual(tool.inputSchema, { type: 'object', properties: {}, additionalProperties: false });
    assert.equal(tool.input, undefined);
  });

  it('still refuses an empty DTO of its own, pointing at NoArguments', async () => {
    @Toolset('empty')
    class EmptyTools {
      @Tool({ description: 'Does nothing.' })
      nothing(_args: Empty, _ctx: ToolContext) {
        return 'ok';
      }
    }
    await assert.rejects(
      Wardrik.create({ store: 'memory:', recoverMs: Infinity, toolsets: [EmptyTools] }),
      (error: unknown) =>
        error instanceof ConfigurationError &&
        /DTO "Empty" has no class-validator decorators/.test(error.message) &&
        /NoArguments/.test(error.message),
    );
  });
});
