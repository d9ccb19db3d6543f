import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { DEFAULT_STORE, Wardrik } from '../di/wardrik.js';
import { ConfigurationError, StoreError } from '../errors.js';
import { openStore, redact, sqlitePath } from '../store/open-store.js';
import type { FullStore } from '../store/store.js';
import { CliError, ExitCode } from './errors.js';

/** The store when neither `--store` nor `WARDRIK_STORE` names one: the library's own default. */
export { DEFAULT_STORE };

/** Where a command writes: results to `out`, problems to `err`. Tests pass their own. */
export interface Io {
  out(text: string): void;
  err(text: string): void;
  readonly env: Readonly<Record<string, string | undefined>>;
  now(): number;
}

/** What every command gets: where to write, whether to write JSON, and which store. */
export class CommandContext {
  constructor(
    readonly io: Io,
    readonly json: boolean,
    /** The store URL as given (`--store`, `WARDRIK_STORE`, or the default). */
    readonly storeUrl: string,
    /** Where the URL came from, for errors: `--store`, `WARDRIK_STORE` or `the default store`. */
    readonly storeSource: '--store' | 'WARDRIK_STORE' | 'the default store',
  ) {}

  /** The store URL for messages: never a password. */
  get storeName(): string {
    return redact(this.storeUrl);
  }

  /** Writes a result: `value` as one line of JSON with `--json`, else the text `human()` makes. */
  print(value: unknown, human: () => string): void {
    this.io.out(this.json ? `${JSON.stringify(value)}\n` : `${human()}\n`);
  }

  /** Opens the store, runs `work` on it, closes it. */
  async withStore<T>(work: (store: FullStore) => Promise<T>): Promise<T> {
    const store = await this.open();
    try {
      return await work(store);
    } finally {
      await store.close().catch(() => undefined);
    }
  }

  /**
   * A Wardrik on the store that offers no tools and never recovers on its own (`recoverMs: Infinity`).
   * Its start-up recovery leaves calls of tools it does not offer alone and no agent is started here,
   * so nothing runs or parks in this process: an approval is recorded, and the node that offers the
   * tool runs the call at its next recovery.
   */
  async withWardrik<T>(work: (wardrik: Wardrik) => Promise<T>): Promise<T> {
    const store = await this.open();
    let wardrik: Wardrik;
    try {
      wardrik = await Wardrik.create({ store, recoverMs: Infinity });
    } catch (error) {
      await store.close().catch(() => undefined);
      throw error;
    }
    try {
      return await work(wardrik);
    } finally {
      await wardrik.close().catch(() => undefined);
    }
  }

  private async open(): Promise<FullStore> {
    const url = this.storeUrl;
    const file = sqlitePath(url);
    // Reading a store that is not there would create an empty one and answer "nothing": say so instead.
    if (file !== undefined && file !== '' && file !== ':memory:') {
      // Relative to the working directory, as openStore resolves it.
      const path = resolve(file);
      if (!existsSync(path)) {
        throw new CliError(
          ExitCode.store,
          `No Wardrik store at ${path} (store "${this.storeName}"): the file does not exist, so nothing has run with it yet. ` +
            'Run wardrik in the directory your app runs in, or pass --store sqlite:PATH (or set WARDRIK_STORE) to the file your app uses.',
        );
      }
      if (statSync(path).isDirectory()) {
        throw new CliError(
          ExitCode.store,
          `Store "${this.storeName}" names ${path}, which is a directory. Pass the database file, such as --store sqlite:.wardrik/wardrik.db.`,
        );
      }
    }
    try {
      return await openStore(url);
    } catch (error) {
      if (error instanceof ConfigurationError) {
        const fix =
          this.storeSource === 'WARDRIK_STORE'
            ? 'Correct WARDRIK_STORE, or pass --store.'
            : 'Correct --store, or set WARDRIK_STORE.';
        throw new CliError(ExitCode.usage, `${this.storeSource}: ${error.message} ${fix}`, { cause: error });
      }
      if (error instanceof StoreError) throw error;
      throw new CliError(ExitCode.store, `Store "${this.storeName}" could not be opened: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }
}
