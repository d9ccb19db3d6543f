import { ConfigurationError } from '../errors.js';
import { MemoryStore } from './memory-store.js';
import type { Store } from './store.js';

/** Opens the store a URL names: `memory:`. */
export async function openStore(url: string): Promise<Store> {
  if (url === 'memory:' || url === 'memory') return new MemoryStore();
  throw new ConfigurationError(
    `Store URL "${redact(url)}" is not one Wardrik knows. Use "memory:", or pass a Store instance.`,
  );
}

/** A URL without its password, for messages. */
export function redact(url: string): string {
  return url.replace(/\/\/([^:/@]+):[^@/]*@/, '//$1:***@');
}
