import type { JSONRPCMessage, RequestId, Transport } from '@modelcontextprotocol/server';
import { isEnvelopedRequest } from './direct-enveloped-requests.js';

/**
 * The connection `serveStdio` serves one 2026-07-28 client on, minus the entry's per-message checks
 * once they decide nothing. Once the entry has pinned the connection's server, it passes each request
 * on unchanged after four zod checks (is it `initialize`? `subscriptions/listen`? a
 * `notifications/cancelled`? then the channel's own), and each answer after two more (a response? a
 * change notification to reroute?); a failing zod check is the dearest (its issues and their garbage),
 * and these were the largest part of a served call's server CPU left. So, once pinned:
 * - a request `isEnvelopedRequest` accepts (exactly what the schema calls a request, `_meta` checked as
 *   it does), other than `initialize`, `subscriptions/listen` and the `notifications/` methods, goes
 *   straight to the channel's listener, as the entry would pass it;
 * - an answer to such a request goes straight to the wire, as the channel would send it (dropped once the
 *   channel has closed, as there).
 * Everything else (notifications both ways, listen, any request less plain, every message before
 * pinning) takes the entry's path. Requests are independent: one passed on directly may start before
 * an earlier message the entry still holds (a listen being answered), never before one of its own.
 */
export class DirectWire implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];

  /** The pinned server's channel, once the entry has passed it a request other than `server/discover`. */
  private pinned: Transport | undefined;
  private channelClosed = false;
  /** Requests passed on directly and not yet answered, by id (a client may reuse an id). */
  private readonly unanswered = new Map<RequestId, number>();

  constructor(private readonly inner: Transport) {}

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  async start(): Promise<void> {
    this.inner.onmessage = (message, extra) => {
      const channel = this.pinned;
      if (channel !== undefined && !this.channelClosed && goesDirect(message)) {
        this.unanswered.set(message.id, (this.unanswered.get(message.id) ?? 0) + 1);
        channel.onmessage?.(message);
        return;
      }
      // A cancelled request gets no answer: stop waiting for one (an answer sent anyway takes the channel).
      if ('method' in message && message.method === 'notifications/cancelled')
        this.unanswered.delete((message.params as { requestId?: RequestId } | undefined)?.requestId as RequestId);
      this.onmessage?.(message, extra);
    };
    this.inner.onclose = () => this.onclose?.();
    this.inner.onerror = (error) => this.onerror?.(error);
    await this.inner.start();
  }

  send(message: JSONRPCMessage, options?: Parameters<Transport['send']>[1]): Promise<void> {
    return this.inner.send(message, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  /**
   * Follows the channel the entry connected a server to (call after the server's `connect`): learns
   * when it is pinned and closed, and sends the answers to requests passed on directly.
   */
  follow(channel: Transport): void {
    const closed = channel.onclose;
    channel.onclose = () => {
      this.channelClosed = true;
      this.unanswered.clear();
      closed?.();
    };
    const listener = channel.onmessage;
    channel.onmessage = (message, extra) => {
      if ('id' in message && 'method' in message && message.method !== 'server/discover') {
        this.pinned = channel;
        channel.onmessage = listener;
      }
      listener?.(message, extra);
    };
    const send = channel.send.bind(channel);
    channel.send = (message, options) => {
      const id = 'method' in message || !('id' in message) ? undefined : message.id;
      const waiting = id === undefined ? undefined : this.unanswered.get(id);
      if (waiting === undefined) return send(message, options);
      if (waiting === 1) this.unanswered.delete(id!);
      else this.unanswered.set(id!, waiting - 1);
      return this.channelClosed ? Promise.resolve() : this.inner.send(message, options);
    };
  }
}

/** Whether the entry, once pinned, would pass `message` on to the server unchanged. */
export function goesDirect(message: JSONRPCMessage): message is JSONRPCMessage & { id: RequestId; method: string } {
  if (!isEnvelopedRequest(message)) return false;
  const { method } = message;
  return method !== 'initialize' && method !== 'subscriptions/listen' && !method.startsWith('notifications/');
}
