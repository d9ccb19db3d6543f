import { Client, StreamableHTTPClientTransport, type Transport } from '@modelcontextprotocol/client';

/** The tasks extension's id, as a client declares it in its capabilities. */
export const TASKS = 'io.modelcontextprotocol/tasks';

/** What a `tools/call` or `tasks/*` request answers on the wire (a task, a result, or an ack). */
export interface WireResult {
  readonly resultType?: string;
  readonly taskId?: string;
  readonly status?: string;
  readonly statusMessage?: string;
  readonly ttlMs?: number;
  readonly pollIntervalMs?: number;
  readonly createdAt?: string;
  readonly lastUpdatedAt?: string;
  readonly requestState?: string;
  readonly isError?: boolean;
  readonly content?: { type: string; text?: string }[];
  readonly structuredContent?: unknown;
  readonly result?: WireResult;
  readonly _meta?: Record<string, unknown>;
}

/** A JSON-RPC error answer, thrown by `TasksClient.request`. */
export class WireError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data: unknown,
  ) {
    super(message);
  }
}

/**
 * Passes the SDK v2 `Client`'s messages through, and sends requests of its own on the same connection,
 * with the envelope the client sends (its `_meta` keys, capabilities included). The SDK (2.4) client
 * refuses a `resultType: 'task'` answer (`UnsupportedResultType`): these requests read the wire as it is.
 */
class Tee implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];
  envelope: Record<string, unknown> | undefined;
  private readonly waiting = new Map<string, (message: Record<string, unknown>) => void>();

  constructor(readonly inner: Transport) {
    inner.onmessage = (message, extra) => {
      const id = (message as { id?: unknown }).id;
      const mine = typeof id === 'string' ? this.waiting.get(id) : undefined;
      if (mine !== undefined) {
        this.waiting.delete(id as string);
        return mine(message as Record<string, unknown>);
      }
      this.onmessage?.(message, extra);
    };
    inner.onclose = () => this.onclose?.();
    inner.onerror = (error) => this.onerror?.(error);
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  send(message: Parameters<Transport['send']>[0], options?: Parameters<Transport['send']>[1]): Promise<void> {
    const meta = (message as { params?: { _meta?: Record<string, unknown> } }).params?._meta;
    if (meta?.['io.modelcontextprotocol/protocolVersion'] !== undefined) this.envelope ??= { ...meta };
    return this.inner.send(message, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion?.(version);
  }

  request(id: string, method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const answered = new Promise<Record<string, unknown>>((resolve) => this.waiting.set(id, resolve));
    const _meta = { ...this.envelope, ...(params._meta as object | undefined) };
    const sent = this.inner.send({ jsonrpc: '2.0', id, method, params: { ...params, _meta } });
    return sent.then(
      () => answered,
      (error: Error) => {
        // The HTTP transport throws for an error status (a JSON-RPC error answered 4xx): its body is the answer.
        this.waiting.delete(id);
        const body = /(\{"jsonrpc".*\})\s*$/s.exec(error.message)?.[1];
        if (body === undefined) throw error;
        return JSON.parse(body) as Record<string, unknown>;
      },
    );
  }
}

let requests = 0;

/** An SDK v2 client pinned to 2026-07-28 that declares the tasks extension, and raw requests beside it. */
export class TasksClient {
  private constructor(
    readonly client: Client,
    private readonly tee: Tee,
  ) {}

  /** Connects over `transport` (HTTP to `url` when a string), declaring the tasks extension unless `declare` is false. */
  static async connect(
    to: string | Transport,
    options: { readonly declare?: boolean; readonly headers?: Record<string, string> } = {},
  ): Promise<TasksClient> {
    const transport =
      typeof to === 'string'
        ? new StreamableHTTPClientTransport(new URL(to), { requestInit: { headers: options.headers ?? {} } })
        : to;
    const client = new Client(
      { name: 'tasks-client', version: '2.0.0' },
      {
        versionNegotiation: { mode: { pin: '2026-07-28' } },
        inputRequired: { autoFulfill: false },
        capabilities: options.declare === false ? {} : { extensions: { [TASKS]: {} } },
      },
    );
    const tee = new Tee(transport);
    await client.connect(tee);
    await client.listTools(); // the envelope this client sends, to send beside it
    return new TasksClient(client, tee);
  }

  /** Sends `method` with this client's envelope; the answer as it is on the wire, or a `WireError`. */
  async request(method: string, params: Record<string, unknown>): Promise<WireResult> {
    const answer = await this.tee.request(`tasks-client-${++requests}`, method, params);
    const error = answer.error as { code: number; message: string; data?: unknown } | undefined;
    if (error !== undefined) throw new WireError(error.code, error.message, error.data);
    return answer.result as WireResult;
  }

  call(name: string, args: object, meta: Record<string, unknown> = {}): Promise<WireResult> {
    return this.request('tools/call', { name, arguments: args, _meta: meta });
  }

  get(taskId: string): Promise<WireResult> {
    return this.request('tasks/get', { taskId });
  }

  cancel(taskId: string): Promise<WireResult> {
    return this.request('tasks/cancel', { taskId });
  }

  close(): Promise<void> {
    return this.client.close();
  }
}

/** The first text part of a result. */
export function firstText(result: WireResult | undefined): string {
  return result?.content?.find((part) => part.type === 'text')?.text ?? '';
}
