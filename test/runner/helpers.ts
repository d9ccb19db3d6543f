import 'reflect-metadata';
import type { Subscription } from 'rxjs';
import {
  Wardrik,
  type CallRequest,
  type Store,
  type ToolAnswer,
  type ToolDefinition,
  type WardrikEvent,
  type WardrikOptions,
} from '../../src/index.js';

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
      return wardrik.runner.run({
        agent: 'a',
        run: 'run-1',
        call: { id: id ?? `c${++next}`, name: `t__${name}`, arguments: args },
        ...rest,
      });
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
  if (answer.status !== 'parked' || answer.inboxId === undefined)
    throw new Error(`expected a parked answer, got ${JSON.stringify(answer)}`);
  return answer.inboxId;
}

export function dropped(code: string): Error {
  return Object.assign(new Error(`socket ${code}`), { code });
}

/**
 * The store as one whose writes are not synchronous: every method (or its stand-in in `instead`), but no
 * `sync`, so the runner goes through the promises, where a stand-in can fail at the moment a test chooses.
 */
export function withoutSync(store: Store, instead: Partial<Store> = {}): Store {
  return new Proxy(store, {
    get: (target, key) => {
      if (key === 'sync') return undefined;
      const value: unknown = Reflect.get(instead, key) ?? Reflect.get(target, key);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
