import type { DependencyContainer } from 'tsyringe';
import { ConfigurationError } from '../errors.js';
import { openStore, redact } from '../store/open-store.js';
import type { Store } from '../store/store.js';
import { Tokens } from './tokens.js';

/** The store when none is given: embedded and durable, with no server to run. The `wardrik` command's default too. */
export const DEFAULT_STORE = 'sqlite:.wardrik/wardrik.db';

/** A store as a message names it: its URL without a password, or its class. */
function storeName(store: string | Store): string {
  return typeof store === 'string' ? `"${redact(store)}"` : `a ${(store as object)?.constructor?.name ?? 'Store'}`;
}

/**
 * The store, given one way: the app's registered under `Tokens.Store` (the app's to close), or the `store`
 * option's, opened here when it is a URL (Wardrik's to close). Both at once is refused.
 */
export async function provideStore(
  parent: DependencyContainer,
  child: DependencyContainer,
  given: string | Store | undefined,
): Promise<{ readonly store: Store; readonly ownsStore: boolean }> {
  if (parent.isRegistered(Tokens.Store, true)) {
    if (given !== undefined) {
      // Refused rather than one of them ignored: calls and turns would go to a store the app did not mean.
      throw new ConfigurationError(
        `Wardrik.create was given both store (${storeName(given)}) and a container that already holds a Store ` +
          `(${storeName(parent.resolve(Tokens.Store))}, registered under Tokens.Store). Pass one: leave out ` +
          "store to use the container's, or register the other one in the container.",
      );
    }
    return { store: child.resolve(Tokens.Store), ownsStore: false };
  }
  const store = typeof given === 'object' && given !== null ? given : await openStore(given ?? DEFAULT_STORE);
  return { store, ownsStore: true };
}
