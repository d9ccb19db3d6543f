import 'reflect-metadata';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { Server, type Result, type Transport } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { defineTool, Wardrik } from '../../src/index.js';
import { StdioLines } from '../../src/serve/stdio-lines.js';
import { eventually } from '../eventually.js';

type Answer = { id: number; result?: Result; error?: { code: number; message: string } };

/** One stdio connection, line by line: what is sent to a server, and its answers by request id. */
function lines(): { transport: StdioLines; call(id: number, params: unknown): Promise<Answer> } {
  const input = new PassThrough();
  const output = new PassThrough();
  const answers = new Map<unknown, Answer>();
  let rest = '';
  output.on('data', (chunk: Buffer) => {
    const parts = (rest + chunk.toString()).split('\n');
    rest = parts.pop()!;
    for (const part of parts) {
      const answer = JSON.parse(part) as Answer;
      answers.set(answer.id, answer);
    }
  });
  return {
    transport: new StdioLines(input, output, 1_000_000),
    async call(id, params) {
      const envelope = {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': { name: 'test', version: '1' },
        'io.modelcontextprotocol/clientCapabilities': {},
      };
      const withEnvelope = { ...(params as object), _meta: envelope };
      input.write(`${JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: withEnvelope })}\n`);
      await eventually(`the answer to request ${id}`, () => answers.has(id));
      return answers.get(id)!;
    },
  };
}

const tools = [
  defineTool({
    name: 'echo',
    description: 'Echoes its text.',
    input: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    annotations: { readOnly: true },
    run: (args: { text: string }) => args.text,
  }),
  defineTool({
    name: 'order',
    description: 'An order, as an object.',
    input: { type: 'object', properties: {} },
    annotations: { readOnly: true },
    run: () => ({ id: 'o-1', lines: [{ sku: 'a', qty: 2 }], note: null }),
  }),
  defineTool({
    name: 'fails',
    description: 'Always fails.',
    input: { type: 'object', properties: {} },
    annotations: { readOnly: true },
    run: () => {
      throw new Error('it broke');
    },
  }),
];

const SERVER_INFO = 'io.modelcontextprotocol/serverInfo';

describe("2026-07-28 tools/call without the SDK's parses of request and result", () => {
  it("answers as the SDK's checked path does: every result it sends passes that path unchanged, every malformed request is -32602 on both", async () => {
    const wardrik = await Wardrik.create({ store: 'memory:', recoverMs: Infinity, tools: { t: tools } });
    const served = wardrik.mcpServer({ tools: ['t/*'], names: 'bare' });
    const fast = lines();
    await served.connect(fast.transport);
    // The SDK's own Server, its tools/call checks in place, answering each call with the result given it.
    let given: Result = {};
    const checked = lines();
    const sdk = serveStdio(
      () => {
        const server = new Server({ name: 'wardrik', version: '0.1.0' }, { capabilities: { tools: {} } });
        server.setRequestHandler('tools/call', () => given as never);
        return server;
      },
      { legacy: 'reject', transport: checked.transport as unknown as Transport as never },
    );
    try {
      const calls = [
        { name: 'echo', arguments: { text: 'hello' } },
        { name: 'order', arguments: {} },
        { name: 'order' },
        { name: 'fails', arguments: {} },
        { name: 'echo', arguments: { text: 5 } },
        { name: 'echo', arguments: { text: 'extra fields are kept and ignored' }, cursor: 'x' },
        // 2026-07-28 has no `task` field (tasks are an extension): it is an extra field too.
        { name: 'echo', arguments: { text: 'no task here' }, task: 'soon' },
      ];
      let id = 0;
      for (const params of calls) {
        const answer = await fast.call(++id, params);
        assert.ok(answer.result !== undefined, JSON.stringify(answer));
        const { [SERVER_INFO]: info, ...meta } = answer.result._meta as Record<string, unknown>;
        assert.deepEqual(info, { name: 'wardrik', version: '0.1.0' });
        given = { ...answer.result, _meta: meta };
        assert.deepEqual((await checked.call(id, params)).result, answer.result, JSON.stringify(params));
      }
      const malformed = [
        {},
        { name: 5, arguments: {} },
        { name: 'echo', arguments: ['hello'] },
        { name: 'echo', arguments: 'hello' },
        { name: 'echo', arguments: null },
      ];
      for (const params of malformed) {
        const [mine, theirs] = [await fast.call(++id, params), await checked.call(id, params)];
        assert.deepEqual([mine.error?.code, theirs.error?.code], [-32602, -32602], JSON.stringify([mine, theirs]));
        assert.match(mine.error!.message, /^Invalid tools\/call request: params(\.\w+)? must be/);
      }
    } finally {
      await sdk.close();
      await served.close();
      await wardrik.close();
    }
  });
});
