import type { IncomingMessage } from 'node:http';
import { pipeline, Transform, type Readable } from 'node:stream';

/** The largest single message Wardrik reads from an MCP server, over stdio or HTTP: 16 MiB unless set. */
export const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

/**
 * A server sent a message larger than the limit. The transport stops reading at once (before the
 * message is held whole) and the connection is closed; calls waiting on it fail with this message.
 */
export class MessageTooLarge extends Error {
  override readonly name = 'MessageTooLarge';
  constructor(readonly limitBytes: number) {
    super(`the server sent a message larger than the limit of ${limitBytes} bytes (maxMessageBytes)`);
  }
}

/**
 * An HTTP response body held to the message limit, as the stream to read it from. A JSON body is one
 * message, so all of it counts. An SSE stream is open-ended and holds many messages, so it is passed on
 * one whole event at a time (up to and including the blank line that ends it), and only the event under
 * way counts: a `data:` line that never ends is stopped at the limit, held here as the bytes that came,
 * before the SDK's SSE parser (which has no bound of its own and copies its growing buffer for each
 * chunk) ever sees it. Past the limit the response is destroyed with `MessageTooLarge`. `onEvents`
 * sees the whole events of an SSE stream before they are passed on.
 */
export function cappedBody(
  res: IncomingMessage,
  limitBytes: number,
  onTooLarge: (error: MessageTooLarge) => void,
  onEvents?: (events: Buffer) => void,
): Readable {
  const streamed = (res.headers['content-type'] ?? '').toLowerCase().startsWith('text/event-stream');
  const events = new SseEventBytes();
  let held = 0;
  let pending: Buffer[] = [];
  const capped = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      if (!streamed) {
        held += chunk.length;
        if (held > limitBytes) return done(tooLarge());
        return done(null, chunk);
      }
      const { held: now, complete } = events.add(chunk);
      if (now > limitBytes) return done(tooLarge());
      if (complete === 0) {
        pending.push(chunk);
        return done();
      }
      const whole =
        pending.length === 0 ? chunk.subarray(0, complete) : Buffer.concat([...pending, chunk.subarray(0, complete)]);
      pending = complete < chunk.length ? [chunk.subarray(complete)] : [];
      onEvents?.(whole);
      done(null, whole);
    },
    flush(done) {
      done(null, pending.length === 0 ? undefined : Buffer.concat(pending));
    },
  });
  const tooLarge = (): MessageTooLarge => {
    const error = new MessageTooLarge(limitBytes);
    pending = [];
    onTooLarge(error);
    return error;
  };
  pipeline(res, capped, () => {});
  return capped;
}

/** How many bytes the SSE event under way holds, as chunks of a stream arrive. */
export class SseEventBytes {
  private held = 0;
  /** Bytes in the current line so far. */
  private lineLength = 0;
  /** The line end that closed the previous line (10 or 13), or 0: a `\n` right after `\r` is the same end. */
  private lastEnd = 0;

  /**
   * Counts `chunk`; returns the bytes of the event under way after it, and how many of the chunk's bytes
   * complete the events before it (0 when no event ends in it).
   */
  add(chunk: Buffer): { readonly held: number; readonly complete: number } {
    let complete = 0;
    let start = 0;
    // Each end is searched for again only once passed: a chunk without \r is scanned for it once.
    let lf = -2;
    let cr = -2;
    for (;;) {
      if (lf !== -1 && lf < start) lf = chunk.indexOf(10, start);
      if (cr !== -1 && cr < start) cr = chunk.indexOf(13, start);
      const end = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr);
      if (end === -1) break;
      const byte = chunk[end]!;
      const empty = this.lineLength + (end - start) === 0;
      this.held += end - start + 1;
      if (empty && byte === 10 && this.lastEnd === 13) {
        this.lastEnd = 0; // the \n of a \r\n: the same line end
        if (complete > 0 && complete === end) {
          complete = end + 1; // an event that ended with \r\n\r\n ends after the \n
          this.held = 0;
        }
      } else {
        if (empty) {
          this.held = 0; // an empty line ends the event
          complete = end + 1;
        }
        this.lastEnd = byte;
      }
      this.lineLength = 0;
      start = end + 1;
    }
    if (start < chunk.length) {
      this.lineLength += chunk.length - start;
      this.held += chunk.length - start;
      this.lastEnd = 0;
    }
    return { held: this.held, complete };
  }
}
