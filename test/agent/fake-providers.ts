import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: any;
}

export interface FakeReply {
  readonly status?: number;
  readonly body: unknown;
}

/**
 * A loopback HTTP server (127.0.0.1, a free port) that answers each request with the next reply its
 * handler makes, and records every request. Stands in for a model provider's API, so the real
 * provider package runs against it.
 */
export async function fakeApi(handler: (request: FakeRequest, index: number) => FakeReply) {
  const requests: FakeRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const request: FakeRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: text === '' ? undefined : JSON.parse(text),
      };
      requests.push(request);
      const reply = handler(request, requests.length - 1);
      res.writeHead(reply.status ?? 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Anthropic Messages API (`POST /v1/messages`, not streamed): a reply with text and tool_use blocks. */
export function anthropicMessage(
  content: readonly ({ text: string } | { tool: string; id: string; input: unknown })[],
  usage = { input: 1000, output: 200 },
): FakeReply {
  const blocks = content.map((part) =>
    'text' in part
      ? { type: 'text', text: part.text }
      : { type: 'tool_use', id: part.id, name: part.tool, input: part.input },
  );
  return {
    body: {
      id: `msg_${Math.random().toString(36).slice(2)}`,
      type: 'message',
      role: 'assistant',
      model: 'claude-haiku-4-5-20251001',
      content: blocks,
      stop_reason: blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn',
      stop_sequence: null,
      usage: {
        input_tokens: usage.input,
        output_tokens: usage.output,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
      },
    },
  };
}

export function anthropicError(status: number, type: string, message: string): FakeReply {
  return { status, body: { type: 'error', error: { type, message } } };
}

/** OpenAI Responses API (`POST /v1/responses`, not streamed): output messages and function calls. */
export function openaiResponse(
  output: readonly ({ text: string } | { tool: string; id: string; input: unknown })[],
  usage = { input: 1000, output: 200 },
): FakeReply {
  return {
    body: {
      id: `resp_${Math.random().toString(36).slice(2)}`,
      object: 'response',
      created_at: 1_767_225_600,
      model: 'gpt-5-mini-2025-08-07',
      status: 'completed',
      incomplete_details: null,
      output: output.map((part, i) =>
        'text' in part
          ? {
              type: 'message',
              id: `msg_${i}`,
              role: 'assistant',
              status: 'completed',
              content: [{ type: 'output_text', text: part.text, annotations: [] }],
            }
          : {
              type: 'function_call',
              id: `fc_${i}`,
              call_id: part.id,
              name: part.tool,
              arguments: JSON.stringify(part.input),
              status: 'completed',
            },
      ),
      usage: {
        input_tokens: usage.input,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: usage.output,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: usage.input + usage.output,
      },
    },
  };
}

export function openaiError(status: number, type: string, message: string): FakeReply {
  return { status, body: { error: { message, type, param: null, code: type } } };
}

/** Gemini API (`POST /v1beta/models/{model}:generateContent`): a candidate with text and function calls. */
export function geminiResponse(
  content: readonly ({ text: string } | { tool: string; input: unknown })[],
  usage = { input: 1000, output: 200 },
): FakeReply {
  return {
    body: {
      candidates: [
        {
          content: {
            role: 'model',
            parts: content.map((part) =>
              'text' in part ? { text: part.text } : { functionCall: { name: part.tool, args: part.input } },
            ),
          },
          finishReason: 'STOP',
          index: 0,
        },
      ],
      usageMetadata: {
        promptTokenCount: usage.input,
        candidatesTokenCount: usage.output,
        totalTokenCount: usage.input + usage.output,
      },
      modelVersion: 'gemini-2.5-flash',
    },
  };
}
