import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ProtocolError,
  ProtocolErrorCode,
  SdkError,
  SdkErrorCode,
  type Tool as McpTool,
} from '@modelcontextprotocol/client';
import { CallToolResultSchema } from '@modelcontextprotocol/core';
import { callTool, defineTool, isTransient, Unavailable } from '../../src/index.js';
import {
  annotationsOf,
  CALL_RESULT,
  callFailure,
  inputSchemaOf,
  isConnectionFailure,
  outputOf,
} from '../../src/mcp/adapt.js';
import { backoffDelay } from '../../src/runner/transient.js';

const tool = (annotations?: McpTool['annotations']): McpTool => ({
  name: 't',
  inputSchema: { type: 'object' },
  ...(annotations === undefined ? {} : { annotations }),
});
const rules = { trusted: false, gated: undefined, wasGated: false, timeoutMs: undefined };

describe('MCP hints as annotations', () => {
  it('maps each hint given and sets none that is not', () => {
    assert.deepEqual(annotationsOf(tool({ destructiveHint: true, openWorldHint: false }), rules), {
      destructive: true,
      openWorld: false,
      gated: true,
      labels: ['outside'],
    });
    assert.deepEqual(annotationsOf(tool(), { ...rules, trusted: true }), { gated: true });
  });

  it('makes a read-only tool idempotent and not gated', () => {
    assert.deepEqual(annotationsOf(tool({ readOnlyHint: true }), { ...rules, trusted: true }), {
      readOnly: true,
      idempotent: true,
      gated: false,
    });
  });

  it("lets the server's gated option override, both ways", () => {
    assert.equal(annotationsOf(tool({ readOnlyHint: true }), { ...rules, gated: true }).gated, true);
    assert.equal(annotationsOf(tool({ destructiveHint: true }), { ...rules, gated: false }).gated, false);
  });

  it('keeps a tool that was gated before gated, whatever its hints say now', () => {
    assert.equal(annotationsOf(tool({ readOnlyHint: true }), { ...rules, wasGated: true }).gated, true);
  });

  it('labels answers outside unless the server is trusted, and carries the time-out', () => {
    assert.deepEqual(annotationsOf(tool(), { ...rules, timeoutMs: 1234 }).labels, ['outside']);
    assert.equal(annotationsOf(tool(), { ...rules, timeoutMs: 1234 }).timeout, 1234);
  });
});

describe('MCP input schemas', () => {
  it('keeps the draft 2020-12 $schema zod 4 servers send, and the tool is checked instead of skipped', async () => {
    const schema = inputSchemaOf({
      name: 'add',
      inputSchema: {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        properties: { a: { $ref: '#/$defs/n' } },
        required: ['a'],
        $defs: { n: { type: 'number' } },
      } as McpTool['inputSchema'],
    });
    assert.equal(schema.$schema, 'https://json-schema.org/draft/2020-12/schema');
    const add = defineTool({
      name: 'add',
      description: 'Adds.',
      input: schema,
      run: (args: { a: number }) => args.a + 1,
    });
    assert.deepEqual(await callTool([add], { name: 'add', arguments: { a: 1 } }), {
      status: 'ok',
      output: 2,
      labels: ['confidential'],
    });
    const bad = await callTool([add], { name: 'add', arguments: { a: 'one' } });
    assert.equal(bad.status, 'error');
  });

  it('checks arguments in the draft the schema names: 2020-12 and 2019-09 keywords hold, draft-07 reads as before', async () => {
    const tool = (name: string, inputSchema: Record<string, unknown>) =>
      defineTool({
        name,
        description: 'Takes a shipment.',
        input: inputSchemaOf({ name, inputSchema: inputSchema as McpTool['inputSchema'] }),
        run: () => 'booked',
      });
    // Two keywords draft-07 does not know: an extra property the composed schema did not evaluate, and a
    // tuple whose second item must be a number.
    const shipment = {
      type: 'object',
      allOf: [{ properties: { to: { type: 'string' } }, required: ['to'] }],
      properties: { size: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }] } },
      unevaluatedProperties: false,
    };
    const modern = tool('ship', { $schema: 'https://json-schema.org/draft/2020-12/schema', ...shipment });
    const sent = (args: Record<string, unknown>) => callTool([modern], { name: 'ship', arguments: args });
    assert.equal((await sent({ to: 'Oslo', size: ['box', 3] })).status, 'ok');
    const extra = await sent({ to: 'Oslo', drop: 'in the river' });
    assert.equal(extra.status, 'error');
    assert.match((extra as { message: string }).message, /drop/);
    assert.equal((await sent({ to: 'Oslo', size: ['box', 'three'] })).status, 'error');
    // The same schema named as draft-07 (or naming no draft) keeps draft-07's reading: both pass.
    const old = tool('ship', { $schema: 'http://json-schema.org/draft-07/schema#', ...shipment });
    assert.equal((await callTool([old], { name: 'ship', arguments: { to: 'Oslo', drop: 1 } })).status, 'ok');
    const bare = tool('ship', shipment);
    assert.equal(
      (await callTool([bare], { name: 'ship', arguments: { to: 'Oslo', size: ['box', 'x'] } })).status,
      'ok',
    );
    // 2019-09: dependentRequired (a card number needs its expiry).
    const pay = tool('pay', {
      $schema: 'https://json-schema.org/draft/2019-09/schema#',
      type: 'object',
      properties: { card: { type: 'string' }, expiry: { type: 'string' } },
      dependentRequired: { card: ['expiry'] },
    });
    assert.equal((await callTool([pay], { name: 'pay', arguments: { card: '4242' } })).status, 'error');
    assert.equal((await callTool([pay], { name: 'pay', arguments: { card: '4242', expiry: '12/30' } })).status, 'ok');
  });

  it('treats a schema without a type as an object schema', () => {
    assert.equal(inputSchemaOf({ name: 'x', inputSchema: {} as McpTool['inputSchema'] }).type, 'object');
  });
});

describe('MCP results as answers', () => {
  it('joins text parts and names the others', () => {
    const output = outputOf(
      {
        content: [
          { type: 'text', text: 'one' },
          { type: 'image', data: 'AAAA', mimeType: 'image/png' },
          { type: 'resource_link', uri: 'file:///a', name: 'a' },
          { type: 'text', text: 'two' },
        ],
      },
      1_000,
      'T',
    );
    assert.equal(output, 'one\n[image image/png, 3 bytes]\n[link file:///a (a)]\ntwo');
  });

  it('prefers structured content', () => {
    assert.deepEqual(
      outputOf({ content: [{ type: 'text', text: '{"n":1}' }], structuredContent: { n: 1 } }, 1_000, 'T'),
      { n: 1 },
    );
  });

  it('cuts text over the limit and says so', () => {
    const output = outputOf({ content: [{ type: 'text', text: 'y'.repeat(50) }] }, 10, 'T') as string;
    assert.ok(output.startsWith('yyyyyyyyyy\n'));
    assert.match(output, /cut this result: it was 50 characters; only the first 10/);
  });

  it('throws a plain error with the text for an isError result', () => {
    assert.throws(
      () => outputOf({ content: [{ type: 'text', text: 'no such repo' }], isError: true }, 1_000, 'T'),
      (error: Error) => error.message === 'no such repo' && !(error instanceof Unavailable),
    );
  });
});

describe('MCP call failures', () => {
  it('are transient for dropped connections, time-outs, server errors and unreachable servers', () => {
    for (const error of [
      new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed'),
      new SdkError(SdkErrorCode.RequestTimeout, 'Request timed out'),
      new ProtocolError(ProtocolErrorCode.InternalError, 'kaboom'),
      new TypeError('fetch failed'),
    ]) {
      const failure = callFailure(error, 'MCP server "s"', undefined);
      assert.ok(failure instanceof Unavailable, error.message);
      assert.equal(isTransient(failure), true);
    }
  });

  it("are the call's own error when the server refuses the request", () => {
    const failure = callFailure(
      new ProtocolError(ProtocolErrorCode.InvalidParams, 'bad a'),
      'MCP server "s"',
      undefined,
    );
    assert.equal(failure instanceof Unavailable, false);
    assert.match(failure.message, /refused the call/);
  });

  it("are the call's own error, keeping the connection, when a result is not valid MCP", () => {
    // What the SDK's client rejects with when a server's result does not fit CALL_RESULT.
    const parsed = CALL_RESULT.safeParse({ content: [{ type: 'text', text: 1 }] });
    assert.equal(parsed.success, false);
    const error = parsed.success ? undefined : parsed.error;
    const failure = callFailure(error, 'MCP server "s" (tool "t")', undefined);
    assert.equal(failure instanceof Unavailable, false);
    assert.equal(
      failure.message,
      'MCP server "s" (tool "t") answered with a result that is not valid MCP (content[0]: "text" is not a string); the server needs fixing.',
    );
    assert.equal(isConnectionFailure(error), false);
    assert.equal(isConnectionFailure(new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed')), true);
  });
});

describe('CALL_RESULT, the check of a call result', () => {
  const valid = [
    {},
    { content: [] },
    { content: [{ type: 'text', text: 'hi', annotations: { audience: ['user'] } }], isError: false, _meta: { a: 1 } },
    {
      content: [
        { type: 'image', data: 'aGk=', mimeType: 'image/png' },
        { type: 'audio', data: 'aGk=', mimeType: 'audio/wav' },
      ],
    },
    {
      content: [
        { type: 'resource', resource: { uri: 'file:///a', text: 'a' } },
        { type: 'resource', resource: { uri: 'file:///b', blob: 'aGk=' } },
      ],
    },
    { content: [{ type: 'resource_link', uri: 'file:///a', name: 'a' }], structuredContent: { n: 1 } },
    // Any JSON value since SEP-2106 (SDK v2), a list included.
    { content: [], structuredContent: [1] },
  ];
  const invalid: [unknown, string][] = [
    [null, 'the result is not an object'],
    [[], 'the result is not an object'],
    [{ content: 'hi' }, '"content" is not a list'],
    [{ content: [{ text: 'hi' }] }, 'content[0]: not an object with a "type"'],
    [{ content: [{ type: 'text', text: 'a' }, { type: 'text' }] }, 'content[1]: "text" is not a string'],
    [{ content: [{ type: 'image', data: 'aGk=' }] }, 'content[0]: "data" or "mimeType" is not a string'],
    [
      { content: [{ type: 'resource', resource: { uri: 'file:///a' } }] },
      'content[0]: "resource" needs a "uri" and a "text" or "blob"',
    ],
    [{ content: [{ type: 'resource_link', uri: 'file:///a' }] }, 'content[0]: "uri" or "name" is not a string'],
    [{ content: [], isError: 'yes' }, '"isError" is not true or false'],
  ];

  it('accepts what the SDK accepts, as it is, without a copy', () => {
    for (const result of valid) {
      assert.equal(CallToolResultSchema.safeParse(result).success, true, JSON.stringify(result));
      const parsed = CALL_RESULT.safeParse(result);
      assert.ok(parsed.success && parsed.data === result, JSON.stringify(result));
    }
  });

  it('refuses what the SDK refuses in the fields Wardrik reads, saying where', () => {
    for (const [result, problem] of invalid) {
      assert.equal(CallToolResultSchema.safeParse(result).success, false, JSON.stringify(result));
      const parsed = CALL_RESULT.safeParse(result);
      assert.equal(parsed.success ? 'accepted' : parsed.error.message, problem);
    }
  });

  it('lets through a content part of a type it does not know, which the model sees named', () => {
    const result = { content: [{ type: 'hologram', data: 1 }] };
    assert.ok(CALL_RESULT.safeParse(result).success);
    assert.equal(outputOf(result as never, 1_000, 'x'), '[hologram content]');
  });
});

describe('Reconnection backoff', () => {
  it('doubles from the base with equal jitter and never waits more than the cap', () => {
    const low = () => 0;
    const high = () => 1;
    assert.deepEqual(
      [1, 2, 3, 4].map((n) => backoffDelay(n, 500, 60_000, low)),
      [250, 500, 1_000, 2_000],
    );
    assert.deepEqual(
      [1, 2, 3, 4].map((n) => backoffDelay(n, 500, 60_000, high)),
      [500, 1_000, 2_000, 4_000],
    );
    assert.equal(backoffDelay(50, 500, 60_000, high), 60_000);
    assert.equal(backoffDelay(1_000, 500, 60_000, low), 30_000);
  });
});
