import 'reflect-metadata';
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Subscription } from 'rxjs';
import {
  Wardrik,
  type CallRequest,
  type McpHubOptions,
  type McpTransportOptions,
  type ToolAnswer,
  type WardrikEvent,
  type WardrikOptions,
} from '../../src/index.js';

export const STDIO_SERVER = fileURLToPath(new URL('./fixtures/stdio-server.js', import.meta.url));
export const HTTP_SERVER = fileURLToPath(new URL('./fixtures/http-server.js', import.meta.url));

/** A stdio transport running the fixture server with node. */
export function stdio(args: readonly string[] = [], env: Record<string, string> = {}): McpTransportOptions {
  return { stdio: { command: process.execPath, args: [STDIO_SERVER, ...args], env } };
}

/** Short delays for tests: never a real minute. */
export const FAST: Omit<McpHubOptions, 'servers'> = {
  backoff: { baseDelayMs: 20, maxDelayMs: 200 },
  listDebounceMs: 20,
  reconcileMs: Infinity,
  waitMs: 10_000,
  random: () => 0.5,
};

export type Harness = Awaited<ReturnType<typeof harness>>;

/** A Wardrik on a memory store with one MCP hub (fast timings), every event recorded. */
export async function harness(
  mcp: McpHubOptions | readonly McpHubOptions[],
  options: Omit<WardrikOptions, 'mcp'> = {},
) {
  const events: WardrikEvent[] = [];
  const listeners = new Set<() => void>();
  const wardrik = await Wardrik.create({
    store: 'memory:',
    recoverMs: Infinity,
    ...options,
    runner: {
      timeoutMs: 5_000,
      ...options.runner,
      retry: { attempts: 5, baseDelayMs: 40, maxDelayMs: 200, ...options.runner?.retry },
    },
    mcp: Array.isArray(mcp) ? mcp.map((hub) => ({ ...FAST, ...hub })) : { ...FAST, ...(mcp as McpHubOptions) },
  });
  const subscription: Subscription = wardrik.events$.subscribe((event) => {
    events.push(event);
    for (const listener of [...listeners]) listener();
  });
  let next = 0;
  return {
    wardrik,
    events,
    hub: (name?: string) => wardrik.mcp(name),
    /** Calls `server__tool` through the runner, with a fresh call id. */
    call(name: string, args: unknown = {}, extra: Partial<CallRequest> = {}): Promise<ToolAnswer> {
      return wardrik.runner.run({
        agent: 'a',
        run: extra.run ?? 'run-1',
        call: { id: `c${++next}`, name, arguments: args },
        ...extra,
      });
    },
    /** Resolves with the first event (already seen or coming) that matches; fails after `ms`. */
    until(match: (event: WardrikEvent) => boolean, ms = 15_000, from = 0): Promise<WardrikEvent> {
      return new Promise((resolve, reject) => {
        let seen = from;
        const look = (): boolean => {
          for (; seen < events.length; seen++) {
            if (match(events[seen]!)) {
              const found = events[seen]!;
              listeners.delete(listener);
              clearTimeout(timer);
              resolve(found);
              return true;
            }
          }
          return false;
        };
        const listener = (): void => void look();
        const timer = setTimeout(() => {
          listeners.delete(listener);
          reject(new Error(`No matching event within ${ms} ms. Events: ${JSON.stringify(events.slice(-30))}`));
        }, ms);
        if (!look()) listeners.add(listener);
      });
    },
    /** Index to pass as `from` to only see later events. */
    mark: () => events.length,
    /** Resolves on a `tools.changed` for `server` with `count` (any count above 0 when omitted) after `from`. */
    toolsChanged(server: string, count?: number, from = 0): Promise<WardrikEvent> {
      return this.until(
        (e) =>
          e.type === 'tools.changed' && e.server === server && (count === undefined ? e.count > 0 : e.count === count),
        15_000,
        from,
      );
    },
    async close() {
      await wardrik.close();
      subscription.unsubscribe();
    },
  };
}

export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'wardrik-mcp-'));
}

export function lines(file: string): string[] {
  return existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => line !== '')
    : [];
}

/** Whether a process with this id exists (a zombie counts: it would be a leak). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
