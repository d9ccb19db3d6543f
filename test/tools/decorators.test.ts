import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IsString } from 'class-validator';
import {
  ConfigurationError,
  Describe,
  Destructive,
  Idempotent,
  Labels,
  OpenWorld,
  ReadOnly,
  Resources,
  Timeout,
  Tokens,
  Tool,
  Toolset,
  Wardrik,
  annotation,
  type ToolContext,
  type ToolDefinition,
  type ToolInfo,
} from '../../src/index.js';

class PathArgs {
  @Describe('A file path, such as /srv/data/a.txt')
  @IsString()
  path!: string;
}

const byPath = (args: PathArgs): readonly string[] => [args.path];

@Toolset('files')
class FileTools {
  @Tool({ description: 'Read a file.', title: 'Read file' })
  @ReadOnly()
  @OpenWorld()
  @Timeout(5_000)
  @Resources(byPath)
  @Labels('outside', 'files')
  readFile(args: PathArgs) {
    return `read ${args.path}`;
  }

  @Destructive()
  @Idempotent()
  @Tool({ name: 'remove', description: 'Delete a file.' })
  deleteFile(args: PathArgs) {
    return `deleted ${args.path}`;
  }

  @Idempotent({ remember: true })
  @Tool({ description: 'Copy a file.' })
  copyFile(args: PathArgs) {
    return `copied ${args.path}`;
  }

  @Tool({ description: 'Tell the HTTP status.' })
  getHTTPStatus() {
    return 200;
  }

  @Tool({ description: 'Find a file.' })
  findFile(args: PathArgs, ctx: ToolContext) {
    return { path: args.path, agent: ctx.agent };
  }
}

/** The same tool with its decorators in two orders. */
@Toolset('first')
class TopFirst {
  @Tool({ description: 'Read a file.', title: 'Read file' })
  @ReadOnly()
  @OpenWorld()
  @Timeout(5_000)
  @Labels('outside')
  @Resources(byPath)
  readFile(args: PathArgs) {
    return args.path;
  }
}

@Toolset('last')
class TopLast {
  @Resources(byPath)
  @Labels('outside')
  @Timeout(5_000)
  @OpenWorld()
  @ReadOnly()
  @Tool({ description: 'Read a file.', title: 'Read file' })
  readFile(args: PathArgs) {
    return args.path;
  }
}

/** A first parameter typed as an interface: tsc emits `Object` for it. */
interface SearchShape {
  query: string;
}

@Toolset('web')
class InterfaceTools {
  @Tool({ description: 'Search the web.' })
  search(args: SearchShape) {
    return args.query;
  }
}

@Toolset('web')
class InputTools {
  @Tool({ description: 'Search the web.', input: PathArgs })
  search(args: SearchShape) {
    return args.query;
  }
}

@Toolset('half')
class HalfTools {
  @ReadOnly()
  @Timeout(1_000)
  lookUp(args: PathArgs) {
    return args.path;
  }
}

async function toolsOf(...toolsets: (new (...args: never[]) => object)[]): Promise<ToolInfo[]> {
  const wardrik = await Wardrik.create({ toolsets, store: 'memory:' });
  try {
    return wardrik.tools();
  } finally {
    await wardrik.close();
  }
}

/** The tool values Wardrik registered for a toolset class. */
async function definitionsOf(toolset: new (...args: never[]) => object): Promise<ToolDefinition[]> {
  const wardrik = await Wardrik.create({ toolsets: [toolset], store: 'memory:' });
  try {
    return wardrik.container
      .resolve(Tokens.Catalog)
      .entries()
      .map((entry) => entry.tool);
  } finally {
    await wardrik.close();
  }
}

const find = (tools: ToolInfo[], name: string): ToolInfo => {
  const tool = tools.find((t) => t.name === name);
  assert.ok(tool, `${name} is among ${tools.map((t) => t.name).join(', ')}`);
  return tool;
};

describe('Tool decorators', () => {
  it('names a tool after its method in snake_case under its toolset', async () => {
    const names = (await toolsOf(FileTools)).map((t) => t.name);
    assert.deepEqual(names, [
      'files__read_file',
      'files__remove',
      'files__copy_file',
      'files__get_http_status',
      'files__find_file',
    ]);
  });

  it('uses @Tool({ name }) instead of the method name', async () => {
    assert.equal(find(await toolsOf(FileTools), 'files__remove').description, 'Delete a file.');
  });

  it('carries the title and description', async () => {
    const tool = find(await toolsOf(FileTools), 'files__read_file');
    assert.equal(tool.title, 'Read file');
    assert.equal(tool.description, 'Read a file.');
  });

  it('records @ReadOnly, @OpenWorld, @Timeout and @Labels as annotations', async () => {
    assert.deepEqual(find(await toolsOf(FileTools), 'files__read_file').annotations, {
      readOnly: true,
      openWorld: true,
      timeout: 5_000,
      labels: ['outside', 'files'],
    });
  });

  it('records @Destructive and @Idempotent()', async () => {
    assert.deepEqual(find(await toolsOf(FileTools), 'files__remove').annotations, {
      destructive: true,
      idempotent: true,
    });
  });

  it('records @Idempotent({ remember: true }) as idempotent and remembered', async () => {
    assert.deepEqual(find(await toolsOf(FileTools), 'files__copy_file').annotations, {
      idempotent: true,
      remember: true,
    });
  });

  it('gives a tool without annotation decorators no annotations', async () => {
    assert.deepEqual(find(await toolsOf(FileTools), 'files__find_file').annotations, {});
  });

  it('builds the same tool whatever the decorator order', async () => {
    const [first] = await definitionsOf(TopFirst);
    const [last] = await definitionsOf(TopLast);
    const { run: _a, ...a } = first!;
    const { run: _b, ...b } = last!;
    assert.deepEqual(a, b);
    assert.equal(a.annotations.resources, byPath);
  });

  it('takes the DTO from the first parameter type, with @Describe texts', async () => {
    assert.deepEqual(find(await toolsOf(FileTools), 'files__find_file').inputSchema, {
      type: 'object',
      properties: { path: { type: 'string', description: 'A file path, such as /srv/data/a.txt' } },
      required: ['path'],
      additionalProperties: false,
    });
  });

  it('gives a method without parameters an empty object schema', async () => {
    assert.deepEqual(find(await toolsOf(FileTools), 'files__get_http_status').inputSchema, {
      type: 'object',
      properties: {},
      additionalProperties: false,
    });
  });

  it('takes the DTO from @Tool({ input }) over the parameter type', async () => {
    const [tool] = await toolsOf(InputTools);
    assert.deepEqual(tool!.inputSchema.required, ['path']);
  });

  it('refuses at create a first parameter typed as an interface, naming class, method and both fixes', async () => {
    await assert.rejects(Wardrik.create({ toolsets: [InterfaceTools], store: 'memory:' }), (error: Error) => {
      assert.ok(error instanceof ConfigurationError);
      assert.match(error.message, /Tool "search" on class "InterfaceTools"/);
      assert.match(error.message, /declared as Object/);
      assert.match(error.message, /@Tool\(\{ input: SearchArgs \}\)/);
      assert.match(error.message, /emitDecoratorMetadata/);
      return true;
    });
  });

  it('refuses at create a method with tool decorators but no @Tool', async () => {
    await assert.rejects(Wardrik.create({ toolsets: [HalfTools], store: 'memory:' }), (error: Error) => {
      assert.ok(error instanceof ConfigurationError);
      assert.match(
        error.message,
        /Tool "lookUp" on class "HalfTools" has tool decorators but no @Tool\(\{ description \}\)/,
      );
      return true;
    });
  });

  it('refuses @Timeout that is not a whole number of milliseconds above 0', async () => {
    @Toolset('slow')
    class SlowTools {
      @Tool({ description: 'Wait.' })
      @Timeout(0)
      wait() {
        return 'done';
      }
    }
    await assert.rejects(
      Wardrik.create({ toolsets: [SlowTools], store: 'memory:' }),
      /Tool "wait" on class "SlowTools": the timeout is a whole number/,
    );
  });

  it('records the @Resources function on the tool for policies to call', async () => {
    const [tool] = await definitionsOf(TopFirst);
    const resources = annotation(tool!, 'resources') as unknown as (args: PathArgs) => readonly string[];
    assert.deepEqual(resources({ path: '/srv/a.txt' }), ['/srv/a.txt']);
  });

  it('leaves functions such as resources out of the annotations a model sees', async () => {
    assert.equal('resources' in find(await toolsOf(FileTools), 'files__read_file').annotations, false);
  });
});
