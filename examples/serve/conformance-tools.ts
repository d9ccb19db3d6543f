// The tools the MCP conformance suite's server scenarios call, as plain `defineTool` values. Served
// with names: 'bare' by `conformance-server.ts` (the suite calls `test_simple_text`, not `conformance__…`).
import { defineTool, ToolResult } from '../../src/index.js';

/** A 1×1 red PNG. */
const RED_PIXEL = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC';
/** A WAV header with no samples. */
const SILENCE = 'UklGRiQAAABXQVZFZm10IBAAAAABAAEARKwAAIhYAQACABAAZGF0YQAAAAA=';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const conformanceTools = [
  defineTool({
    name: 'test_simple_text',
    description: 'Answers with a line of text.',
    annotations: { readOnly: true },
    run: () => 'This is a simple text response for testing.',
  }),
  defineTool({
    name: 'test_image_content',
    description: 'Answers with an image.',
    annotations: { readOnly: true },
    run: () => new ToolResult(undefined, { content: [{ type: 'image', data: RED_PIXEL, mimeType: 'image/png' }] }),
  }),
  defineTool({
    name: 'test_audio_content',
    description: 'Answers with a sound.',
    annotations: { readOnly: true },
    run: () => new ToolResult(undefined, { content: [{ type: 'audio', data: SILENCE, mimeType: 'audio/wav' }] }),
  }),
  defineTool({
    name: 'test_embedded_resource',
    description: 'Answers with an embedded resource.',
    annotations: { readOnly: true },
    run: () =>
      new ToolResult(undefined, {
        content: [
          {
            type: 'resource',
            resource: {
              uri: 'test://embedded-resource',
              mimeType: 'text/plain',
              text: 'This is an embedded resource content.',
            },
          },
        ],
      }),
  }),
  defineTool({
    name: 'test_multiple_content_types',
    description: 'Answers with text, an image and a resource.',
    annotations: { readOnly: true },
    run: () =>
      new ToolResult(undefined, {
        content: [
          { type: 'text', text: 'Multiple content types test:' },
          { type: 'image', data: RED_PIXEL, mimeType: 'image/png' },
          {
            type: 'resource',
            resource: {
              uri: 'test://mixed-content-resource',
              mimeType: 'application/json',
              text: '{"test":"data","value":123}',
            },
          },
        ],
      }),
  }),
  defineTool({
    name: 'test_error_handling',
    description: 'Always fails.',
    annotations: { readOnly: true },
    run: () => {
      throw new Error('This tool intentionally returns an error for testing');
    },
  }),
  defineTool({
    name: 'test_tool_with_progress',
    description: 'Reports progress as it goes.',
    annotations: { readOnly: true },
    run: async (_args, ctx) => {
      ctx.progress(0, 100);
      await sleep(50);
      ctx.progress(50, 100);
      await sleep(50);
      ctx.progress(100, 100);
      return 'Progress test completed.';
    },
  }),
  defineTool({
    name: 'test_tool_with_logging',
    description: 'Logs as it goes.',
    annotations: { readOnly: true },
    run: async (_args, ctx) => {
      ctx.log('info', 'Tool execution started');
      await sleep(50);
      ctx.log('info', 'Tool processing data');
      await sleep(50);
      ctx.log('info', 'Tool execution completed');
      return 'Logging test completed.';
    },
  }),
  // The 2026-07-28 suite's probe that a call whose request set no `_meta` log level gets no log messages.
  defineTool({
    name: 'test_logging_tool',
    description: 'Logs once.',
    annotations: { readOnly: true },
    run: (_args, ctx) => {
      ctx.log('info', 'A log message only a request that asked for logs may see');
      return 'Logged.';
    },
  }),
  defineTool({
    name: 'json_schema_2020_12_tool',
    description: 'Tool with JSON Schema 2020-12 features',
    annotations: { readOnly: true },
    input: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: {
        address: {
          $anchor: 'address',
          type: 'object',
          properties: { street: { type: 'string' }, city: { type: 'string' } },
        },
      },
      properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
      // Composition and conditional keywords, which the 2026-07-28 suite checks are passed on unchanged.
      allOf: [{ anyOf: [{ required: ['name'] }, { required: ['address'] }, { maxProperties: 0 }] }],
      if: { required: ['address'] },
      then: { required: ['name'] },
      else: {},
      additionalProperties: false,
    },
    run: (args: { name?: string }) => `Hello ${args.name ?? 'there'}.`,
  }),
  // The tasks extension's fixtures (a client that declares it gets a task for a call not done in 500 ms).
  defineTool({
    name: 'greet',
    description: 'Greets at once.',
    input: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    annotations: { readOnly: true },
    run: (args: { name: string }) => `Hello, ${args.name}!`,
  }),
  defineTool({
    name: 'slow_compute',
    description: 'Takes `seconds` seconds, unless cancelled.',
    input: {
      type: 'object',
      properties: { seconds: { type: 'number', minimum: 0 }, label: { type: 'string' } },
      required: ['seconds'],
    },
    annotations: { readOnly: true },
    run: async (args: { seconds: number; label?: string }, ctx) => {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, args.seconds * 1000);
        ctx.signal.addEventListener('abort', () => (clearTimeout(timer), reject(ctx.signal.reason as Error)), {
          once: true,
        });
      });
      return `Computed ${args.label ?? 'it'} in ${args.seconds} s.`;
    },
  }),
  defineTool({
    name: 'failing_job',
    description: 'Fails after a second.',
    annotations: { readOnly: true },
    run: async () => {
      await sleep(1000);
      throw new Error('This job always fails.');
    },
  }),
];
