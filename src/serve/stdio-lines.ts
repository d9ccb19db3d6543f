import { once } from 'node:events';
import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/server';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { lineStart, MessageLines } from '../mcp/message-lines.js';

/**
 * MCP over stdio, the server's side, as `connect()` serves it: one JSON-RPC message a line read from
 * `input`, one written to `output`. Beside the SDK's `StdioServerTransport` it:
 * - writes the messages of one tick with one system call (corked until the tick ends): answers to
 *   calls sent at once were one write each, the largest part of a served call's cost;
 * - reads lines with `MessageLines`: each byte once, each message's outline only (the SDK's transport
 *   checks it a first time with the whole JSON-RPC schema, before its Protocol checks it again), and a
 *   line longer than `maxLineBytes` closes the connection, as the SDK's does past its buffer's size.
 * A line that is not JSON-RPC is reported (`onerror`) and skipped, as there.
 *
 * Lifecycle: `start()` begins reading; `onclose` fires once, when `input` ends or `close()` is called.
 */
export class StdioLines implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private readonly lines: MessageLines;
  private corked = false;
  private closed = false;

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    private readonly maxLineBytes: number,
  ) {
    this.lines = new MessageLines(maxLineBytes, {
      message: (message) => this.onmessage?.(message),
      notMessage: (line) =>
        this.onerror?.(
          new Error(`A line on stdin is not a JSON-RPC 2.0 message; skipped it (it starts ${lineStart(line)}).`),
        ),
      tooLong: () => this.tooLong(),
    });
  }

  async start(): Promise<void> {
    this.input.on('data', this.read);
    this.input.on('end', this.ended);
    this.input.on('error', this.failed);
    this.output.on('error', this.failed);
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return Promise.reject(new Error('Not connected: the stdio connection is closed.'));
    if (!this.corked) {
      this.corked = true;
      this.output.cork();
      process.nextTick(this.flush);
    }
    if (this.output.write(`${JSON.stringify(message)}\n`)) return Promise.resolve();
    return once(this.output, 'drain').then(() => undefined);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off('data', this.read);
    this.input.off('end', this.ended);
    this.input.off('error', this.failed);
    this.output.off('error', this.failed);
    if (this.input.listenerCount('data') === 0) this.input.pause();
    this.lines.stop();
    this.flush();
    this.onclose?.();
  }

  private readonly flush = (): void => {
    if (!this.corked) return;
    this.corked = false;
    this.output.uncork();
  };

  private tooLong(): void {
    this.onerror?.(
      new Error(
        `A message on stdin is longer than ${this.maxLineBytes} bytes, the most this server reads; closing the connection. Send smaller arguments.`,
      ),
    );
    void this.close();
  }

  private readonly read = (chunk: Buffer): void => this.lines.push(chunk);

  private readonly ended = (): void => void this.close();

  private readonly failed = (error: Error): void => {
    this.onerror?.(error);
    void this.close();
  };
}
