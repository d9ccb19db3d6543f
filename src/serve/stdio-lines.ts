import { once } from 'node:events';
import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/**
 * MCP over stdio, the server's side, as `connect()` serves it: one JSON-RPC message a line read from
 * `input`, one written to `output`. Beside the SDK's `StdioServerTransport` it:
 * - writes the messages of one tick with one system call (corked until the tick ends): answers to
 *   calls sent at once were one write each, the largest part of a served call's cost;
 * - checks each line's outline only, since the SDK's Protocol checks every message's exact form as it
 *   dispatches it (the SDK's transport checks it a first time with the whole JSON-RPC schema);
 * - reads each byte once, and refuses a line longer than `maxLineBytes`: the connection closes, as the
 *   SDK's does past its buffer's size.
 * A line that is not JSON-RPC is reported (`onerror`) and skipped, as there.
 *
 * Lifecycle: `start()` begins reading; `onclose` fires once, when `input` ends or `close()` is called.
 */
export class StdioLines implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  /** The start of a line that has not ended yet, as it came (joined once it ends). */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private corked = false;
  private closed = false;

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    private readonly maxLineBytes: number,
  ) {}

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
    this.pending = [];
    this.flush();
    this.onclose?.();
  }

  private readonly flush = (): void => {
    if (!this.corked) return;
    this.corked = false;
    this.output.uncork();
  };

  /** Splits what came into lines, one message each. */
  private readonly read = (chunk: Buffer): void => {
    let start = 0;
    for (let end = chunk.indexOf(10); end !== -1 && !this.closed; end = chunk.indexOf(10, start)) {
      let line = chunk.subarray(start, end);
      start = end + 1;
      if (this.pendingBytes + line.length > this.maxLineBytes) return this.tooLong();
      if (this.pending.length > 0) {
        line = Buffer.concat([...this.pending, line]);
        this.pending = [];
        this.pendingBytes = 0;
      }
      this.receive(line.toString('utf8', 0, line.length > 0 && line[line.length - 1] === 13 ? line.length - 1 : line.length));
    }
    if (start === chunk.length || this.closed) return;
    this.pending.push(chunk.subarray(start));
    this.pendingBytes += chunk.length - start;
    if (this.pendingBytes > this.maxLineBytes) this.tooLong();
  };

  private receive(line: string): void {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      message = undefined;
    }
    if (message === null || typeof message !== 'object' || Array.isArray(message) || (message as { jsonrpc?: unknown }).jsonrpc !== '2.0') {
      this.onerror?.(new Error(`A line on stdin is not a JSON-RPC 2.0 message; skipped it (it starts ${JSON.stringify(line.slice(0, 40))}).`));
      return;
    }
    this.onmessage?.(message as JSONRPCMessage);
  }

  private tooLong(): void {
    this.onerror?.(new Error(`A message on stdin is longer than ${this.maxLineBytes} bytes, the most this server reads; closing the connection. Send smaller arguments.`));
    void this.close();
  }

  private readonly ended = (): void => void this.close();

  private readonly failed = (error: Error): void => {
    this.onerror?.(error);
    void this.close();
  };
}
