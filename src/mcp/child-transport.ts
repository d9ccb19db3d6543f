import { spawn, type ChildProcess } from 'node:child_process';
import { serializeMessage } from '@modelcontextprotocol/client';
import type { Transport } from '@modelcontextprotocol/client';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { systemTimers, type Timer, type Timers } from '../clock.js';
import { lineStart, MessageLines } from './message-lines.js';
import { MAX_MESSAGE_BYTES, MessageTooLarge } from './message-limit.js';

export interface ChildTransportOptions {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /** The largest single message read from stdout, in bytes: 16 MiB unless set. */
  readonly maxMessageBytes?: number;
  /** A message passed the limit; the transport is closing. */
  readonly onTooLarge?: (error: MessageTooLarge) => void;
  /** Where the grace periods of ending the process are timed: Node's own unless given. */
  readonly timers?: Timers;
}

/** How much of the child's stderr is kept for error messages; the rest is read and dropped. */
const STDERR_TAIL = 2_048;
/** After stdin is closed, how long a server gets to exit on its own before SIGTERM, then SIGKILL. */
const EXIT_GRACE_MS = 500;
const TERM_GRACE_MS = 1_000;

/**
 * A stdio transport for the SDK's `Client` that owns its child process completely: stderr is piped and
 * drained (only the last 2 KB kept, for error messages, so a server flooding it costs no memory),
 * stdout is read with `MessageLines` (lines that are not JSON-RPC reported and skipped, a message over
 * `maxMessageBytes` closing the connection), and `close()` returns only once the process has exited
 * and been reaped (stdin closed, then SIGTERM, then SIGKILL). The SDK's own stdio transport inherits
 * stderr by default and returns from `close()` without waiting after SIGKILL.
 *
 * Lifecycle: `start()` resolves once the process is spawned (rejects if it cannot be, such as an
 * unknown command); `onclose` fires once, when the process's output has ended after it exited, or
 * after `close()`.
 */
export class ChildTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private child: ChildProcess | undefined;
  /** Stdout's lines; after a message over the limit it reads nothing more, while the connection closes. */
  private readonly lines: MessageLines;
  private readonly maxMessageBytes: number;
  private readonly timers: Timers;
  private stderrTail = '';
  private exitInfo: string | undefined;
  private closedFired = false;
  /** Fires `onclose` should the output not end after the exit; cancelled once it fired. */
  private exitGrace: Timer | undefined;
  private readonly exited: Promise<void>;
  private markExited!: () => void;

  constructor(private readonly options: ChildTransportOptions) {
    this.maxMessageBytes = options.maxMessageBytes ?? MAX_MESSAGE_BYTES;
    this.timers = options.timers ?? systemTimers;
    this.lines = new MessageLines(this.maxMessageBytes, {
      message: (message) => this.onmessage?.(message),
      // A server printing logs to stdout: reported and skipped.
      notMessage: (line) =>
        this.onerror?.(
          new Error(
            `The server wrote a line to stdout that is not JSON-RPC; skipped it (it starts ${lineStart(line)}).`,
          ),
        ),
      tooLong: () => this.refuseOverLimit(),
    });
    this.exited = new Promise((resolve) => {
      this.markExited = resolve;
    });
  }

  /** The child's process id, once spawned. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** How the process ended and the last of its stderr, for error messages; undefined while it runs. */
  get exit(): string | undefined {
    if (this.exitInfo === undefined) return undefined;
    const tail = this.stderrTail.trim().split('\n').slice(-3).join(' | ');
    return tail === '' ? this.exitInfo : `${this.exitInfo}; its stderr ended with: ${tail.slice(-300)}`;
  }

  start(): Promise<void> {
    if (this.child !== undefined) throw new Error('ChildTransport already started.');
    return new Promise((resolve, reject) => {
      const child = spawn(this.options.command, [...this.options.args], {
        env: { ...this.options.env },
        ...(this.options.cwd === undefined ? {} : { cwd: this.options.cwd }),
        stdio: ['pipe', 'pipe', 'pipe'],
        shell: false,
        windowsHide: true,
      });
      this.child = child;
      let spawned = false;
      child.once('spawn', () => {
        spawned = true;
        resolve();
      });
      child.once('error', (error) => {
        if (!spawned) {
          this.exitInfo = `it could not be started: ${error.message}`;
          this.markExited();
          reject(error);
          this.fireClose();
        } else {
          this.onerror?.(error);
        }
      });
      child.once('exit', (code, signal) => {
        this.exitInfo =
          signal !== null ? `the process was ended by ${signal}` : `the process exited with code ${String(code)}`;
        this.markExited();
        // Normally 'close' follows at once; a grandchild holding the pipes open must not hide the exit.
        this.exitGrace = this.timers.after(200, () => this.fireClose(), { background: true });
      });
      child.once('close', () => this.fireClose());
      child.stdin!.on('error', (error) => this.onerror?.(error));
      child.stdout!.on('error', (error) => this.onerror?.(error));
      child.stderr!.on('error', () => {});
      child.stderr!.setEncoding('utf8');
      child.stderr!.on('data', (chunk: string) => {
        this.stderrTail = (this.stderrTail + chunk).slice(-STDERR_TAIL);
      });
      child.stdout!.on('data', (chunk: Buffer) => this.lines.push(chunk));
    });
  }

  private refuseOverLimit(): void {
    const error = new MessageTooLarge(this.maxMessageBytes);
    this.options.onTooLarge?.(error);
    this.onerror?.(error);
    void this.close();
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (stdin === undefined || stdin === null || this.exitInfo !== undefined || stdin.destroyed) {
      return Promise.reject(new Error(`Not connected: ${this.exit ?? 'the process is not running'}.`));
    }
    // Each message goes to the pipe at once, not corked until the tick ends: the server then starts on
    // the first of a burst of calls while the rest are still being made, and under the runner that
    // overlap is worth more than the writes saved (measured: ~5% more calls a second at 32 at once).
    // A write error also comes as the stream's 'error' (reported through onerror) and the process's exit.
    if (stdin.write(serializeMessage(message))) return Promise.resolve();
    return new Promise((resolve) => stdin.once('drain', resolve));
  }

  /** Ends the process and waits until it has exited and been reaped. Safe to call twice. */
  async close(): Promise<void> {
    const child = this.child;
    if (child !== undefined && this.exitInfo === undefined) {
      try {
        child.stdin?.end();
      } catch {
        // already closed
      }
      if (!(await within(this.timers, this.exited, EXIT_GRACE_MS))) {
        child.kill('SIGTERM');
        if (!(await within(this.timers, this.exited, TERM_GRACE_MS))) {
          child.kill('SIGKILL');
          await within(this.timers, this.exited, 10_000);
        }
      }
    }
    child?.stdout?.destroy();
    child?.stderr?.destroy();
    this.lines.stop();
    this.fireClose();
  }

  private fireClose(): void {
    this.exitGrace?.cancel();
    if (this.closedFired) return;
    this.closedFired = true;
    this.onclose?.();
  }
}

/** Whether `promise` settles within `ms`. */
function within(timers: Timers, promise: Promise<void>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = timers.after(ms, () => resolve(false));
    void promise.then(() => {
      timer.cancel();
      resolve(true);
    });
  });
}
