import 'reflect-metadata';
import type { Subscription } from 'rxjs';
import { Wardrik, type CallRequest, type ToolAnswer, type ToolDefinition, type WardrikEvent, type WardrikOptions } from '../../src/index.js';

/** A Wardrik with the given tools under toolset `t`, fast retries, and every event recorded. */
export async function harness(tools: readonly ToolDefinition[], options: Omit<WardrikOptions, 'tools'> = {}) {
  const wardrik = await Wardrik.create({
    store: 'memory:',
    ...options,
    runner: { timeoutMs: 1_000, ...options.runner, retry: { baseDelayMs: 1, maxDelayMs: 2, ...options.runner?.retry } },
    tools: { t: tools },
  });
  const events: WardrikEvent[] = [];
  const subscription: Subscription = wardrik.events$.subscribe((event) => events.push(event));
  let next = 0;
  return {
    wardrik,
    events,
    /** Calls tool `t__<name>` in run `run-1` as agent `a`, with a fresh call id unless given. */
    call(name: string, args: unknown = {}, extra: Partial<CallRequest> & { id?: string } = {}): Promise<ToolAnswer> {
      const { id, ...rest } = extra;
      return wardrik.runner.run({ agent: 'a', run: 'run-1', call: { id: id ?? `c${++next}`, name: `t__${name}`, arguments: args }, ...rest });
    },
    types(filter?: (event: WardrikEvent) => boolean): string[] {
      return events.filter(filter ?? (() => true)).map((event) => event.type);
    },
    async close() {
      subscription.unsubscribe();
      await wardrik.close();
    },
  };
}

/** A counter for how many times a tool's body ran. */
export function counter() {
  const calls: unknown[] = [];
  return {
    calls,
    get count() {
      return calls.length;
    },
  };
}

export function errorCode(answer: ToolAnswer): string | undefined {
  return answer.status === 'error' ? answer.code : undefined;
}

export function errorMessage(answer: ToolAnswer): string {
  return answer.status === 'error' ? answer.message : `(not an error: ${answer.status})`;
}

export function inboxId(answer: ToolAnswer): string {
  if (answer.status !== 'parked' || answer.inboxId === undefined) throw new Error(`expected a parked answer, got ${JSON.stringify(answer)}`);
  return answer.inboxId;
}

export function dropped(code: string): Error {
  return Object.assign(new Error(`socket ${code}`), { code });
}
