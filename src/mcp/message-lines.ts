import type { JSONRPCMessage } from '@modelcontextprotocol/client';

/** What `MessageLines` finds in the bytes it is given, in the order they came. */
export interface MessageLinesHandlers {
  /** A line that is a JSON-RPC 2.0 message. */
  readonly message: (message: JSONRPCMessage) => void;
  /** A line that is not one (a program printing logs to stdout, say): skipped, and reading goes on. */
  readonly notMessage: (line: string) => void;
  /** A line went past the limit, ended or not: reading has stopped for good (see `stop`). */
  readonly tooLong: () => void;
}

/**
 * MCP's stdio framing, read: one JSON-RPC message a line, from a byte stream cut into chunks anywhere.
 * Both ends of Wardrik's stdio connections read with it: the hub a child server's stdout, and the MCP
 * server its stdin. It
 * - scans and copies each byte once (a line cut across chunks is joined once, when it ends);
 * - holds at most `maxLineBytes` of a line: past that it stops before holding the line whole, so a peer
 *   that never ends a line costs no more memory than the limit;
 * - checks each message's outline only (an object with `jsonrpc: "2.0"`): the SDK's Protocol checks the
 *   exact form of each message as it dispatches it, so a full schema check here would be a second one.
 *
 * A `\r` before the `\n` is dropped. Once stopped (`stop()`, or a line too long), it reads nothing more,
 * not even the rest of a chunk it is reading.
 */
export class MessageLines {
  /** The start of a line that has not ended yet, as it came. */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private stopped = false;

  constructor(
    private readonly maxLineBytes: number,
    private readonly on: MessageLinesHandlers,
  ) {}

  /** Reads the next bytes of the stream, reporting each line they end. */
  push(chunk: Buffer): void {
    let start = 0;
    for (let end = chunk.indexOf(10); end !== -1 && !this.stopped; end = chunk.indexOf(10, start)) {
      let line = chunk.subarray(start, end);
      start = end + 1;
      if (this.pendingBytes + line.length > this.maxLineBytes) return this.refuse();
      if (this.pending.length > 0) {
        line = Buffer.concat([...this.pending, line]);
        this.pending = [];
        this.pendingBytes = 0;
      }
      this.receive(
        line.toString('utf8', 0, line.length > 0 && line[line.length - 1] === 13 ? line.length - 1 : line.length),
      );
    }
    if (start === chunk.length || this.stopped) return;
    this.pending.push(chunk.subarray(start));
    this.pendingBytes += chunk.length - start;
    if (this.pendingBytes > this.maxLineBytes) this.refuse();
  }

  /** Reads nothing more, and lets go of a line under way. */
  stop(): void {
    this.stopped = true;
    this.pending = [];
    this.pendingBytes = 0;
  }

  private refuse(): void {
    this.stop();
    this.on.tooLong();
  }

  private receive(line: string): void {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      message = undefined;
    }
    if (
      message === null ||
      typeof message !== 'object' ||
      Array.isArray(message) ||
      (message as { jsonrpc?: unknown }).jsonrpc !== '2.0'
    ) {
      this.on.notMessage(line);
      return;
    }
    this.on.message(message as JSONRPCMessage);
  }
}

/** The start of a line, quoted, for a message that says it was skipped: never the whole line. */
export function lineStart(line: string): string {
  return JSON.stringify(line.slice(0, 40));
}
