import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IsString } from 'class-validator';
import {
  annotate,
  annotation,
  callTool,
  ConfigurationError,
  defineTool,
  getPrivate,
  isRepeatable,
  putPrivate,
  updatePrivate,
  type ToolOptions,
} from '../../src/index.js';

class GreetArgs {
  @IsString()
  name!: string;
}

const greet = defineTool({
  name: 'greet',
  description: 'Greet someone by name.',
  input: GreetArgs,
  run: (args: GreetArgs) => `Hello, ${args.name}`,
});

const base = { name: 'noop', description: 'Does nothing.', run: () => null } satisfies ToolOptions;

describe('defineTool', () => {
  it('builds a tool from a DTO class, with its schema', async () => {
    assert.equal(greet.input, GreetArgs);
    assert.deepEqual(greet.inputSchema.required, ['name']);
    assert.deepEqual(await callTool([greet], { name: 'greet', arguments: { name: 'Ada' } }), {
      status: 'ok',
      output: 'Hello, Ada',
      labels: ['confidential'],
    });
  });

  it('builds a tool from a JSON Schema object, copied and frozen', () => {
    const schema = { type: 'object', properties: { q: { type: 'string' } } };
    const tool = defineTool({ ...base, input: schema });
    assert.equal(tool.input, undefined);
    assert.deepEqual(tool.inputSchema, schema);
    assert.notEqual(tool.inputSchema, schema);
    assert.ok(Object.isFrozen(tool.inputSchema.properties));
    assert.equal(Object.isFrozen(schema), false, "the caller's object is left alone");
  });

  it('gives a tool without input an empty object schema', () => {
    assert.deepEqual(defineTool(base).inputSchema, { type: 'object', properties: {}, additionalProperties: false });
  });

  it('throws a ConfigurationError saying the name is missing', () => {
    assert.throws(
      () => defineTool({ ...base, name: '' }),
      (error: Error) => error instanceof ConfigurationError && /has no name/.test(error.message),
    );
  });

  it('throws a ConfigurationError saying the description is missing', () => {
    assert.throws(
      () => defineTool({ ...base, description: ' ' }),
      (error: Error) => error instanceof ConfigurationError && /Tool "noop" has no description/.test(error.message),
    );
  });

  it('throws a ConfigurationError saying run is missing', () => {
    assert.throws(
      () => defineTool({ name: 'noop', description: 'Does nothing.' } as ToolOptions),
      (error: Error) => error instanceof ConfigurationError && /Tool "noop" has no run function/.test(error.message),
    );
  });

  it('throws a ConfigurationError when input is neither a class nor a schema object', () => {
    assert.throws(
      () => defineTool({ ...base, input: 'GreetArgs' as never }),
      /input must be a DTO class or a JSON Schema object; got string/,
    );
  });

  it('returns a frozen value that cannot be changed, even in strict mode', () => {
    assert.ok(Object.isFrozen(greet));
    assert.ok(Object.isFrozen(greet.annotations));
    assert.throws(() => {
      (greet as { name: string }).name = 'other';
    }, TypeError);
    assert.equal(greet.name, 'greet');
  });

  it('copies the annotations it was given, so a later change to them does nothing', () => {
    const labels = ['outside'];
    const tool = defineTool({ ...base, annotations: { labels } });
    labels.push('secret');
    assert.deepEqual(tool.annotations.labels, ['outside']);
  });
});

describe('annotate and annotation', () => {
  const tool = defineTool({ ...base, annotations: { readOnly: true, labels: ['a'] } });

  it('replaces keys the tool has and adds new ones, in a new frozen value', () => {
    const next = annotate(tool, { labels: ['b'], timeout: 1_000 });
    assert.deepEqual(next.annotations, { readOnly: true, labels: ['b'], timeout: 1_000 });
    assert.ok(Object.isFrozen(next));
    assert.ok(Object.isFrozen(next.annotations));
    assert.notEqual(next, tool);
  });

  it('leaves the original unchanged', () => {
    annotate(tool, { readOnly: false, destructive: true });
    assert.deepEqual(tool.annotations, { readOnly: true, labels: ['a'] });
  });

  it('reads an annotation, or the fallback when the tool does not set it', () => {
    assert.equal(annotation(tool, 'readOnly', false), true);
    assert.equal(annotation(tool, 'destructive', false), false);
    assert.equal(annotation(tool, 'timeout'), undefined);
  });

  it('reads a key the tool set to false as false, not the fallback', () => {
    assert.equal(annotation(annotate(tool, { destructive: false }), 'destructive', true), false);
  });
});

describe('isRepeatable', () => {
  it('is true for a read-only tool', () => {
    assert.equal(isRepeatable(defineTool({ ...base, annotations: { readOnly: true } })), true);
  });

  it('is true for an idempotent tool', () => {
    assert.equal(isRepeatable(defineTool({ ...base, annotations: { idempotent: true } })), true);
  });

  it('is false for a tool with neither', () => {
    assert.equal(isRepeatable(defineTool({ ...base, annotations: { destructive: true } })), false);
    assert.equal(isRepeatable(defineTool(base)), false);
  });
});

describe('private data', () => {
  const mine = Symbol('my-package');
  class TheirPackage {}

  it('puts a value under a symbol in a new tool, leaving the original without it', () => {
    const next = putPrivate(greet, mine, { calls: 1 });
    assert.deepEqual(getPrivate(next, mine), { calls: 1 });
    assert.equal(getPrivate(greet, mine), undefined);
    assert.ok(Object.isFrozen(next));
  });

  it('keys by class as well, separately from symbols', () => {
    const next = putPrivate(putPrivate(greet, TheirPackage, 'theirs'), mine, 'mine');
    assert.equal(getPrivate(next, TheirPackage), 'theirs');
    assert.equal(getPrivate(next, mine), 'mine');
  });

  it('returns the fallback when there is nothing under the key', () => {
    assert.equal(getPrivate(greet, mine, 42), 42);
  });

  it('updates a value, starting from the fallback', () => {
    const once = updatePrivate(greet, mine, 0, (n: number) => n + 1);
    const twice = updatePrivate(once, mine, 0, (n: number) => n + 1);
    assert.equal(getPrivate(once, mine), 1);
    assert.equal(getPrivate(twice, mine), 2);
    assert.equal(getPrivate(greet, mine), undefined);
  });

  it('refuses string keys', () => {
    assert.throws(() => getPrivate(greet, 'mine' as never), /keyed by your own symbol or class/);
    assert.throws(() => putPrivate(greet, 'mine' as never, 1), /keyed by your own symbol or class/);
  });

  it('keeps private data through annotate', () => {
    const next = annotate(putPrivate(greet, mine, 'kept'), { readOnly: true });
    assert.equal(getPrivate(next, mine), 'kept');
  });

  it('still runs the tool it copied', async () => {
    const next = putPrivate(greet, mine, 'x');
    assert.equal((await callTool([next], { name: 'greet', arguments: { name: 'Bo' } })).status, 'ok');
  });
});
