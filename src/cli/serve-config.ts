import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { WardrikOptions } from '../di/wardrik.js';
import { ConfigurationError } from '../errors.js';
import { readNumbers } from '../options.js';
import { SERVE_NUMBERS, type ServeOptions } from '../serve/options.js';
import { closestNames, editDistance } from '../tools/names.js';
import { CliError, ExitCode } from './errors.js';

/**
 * What `wardrik serve MODULE` reads from the module's `wardrikOptions` export, or from `--config FILE`
 * (JSON): `Wardrik.create`'s options but those the command sets itself (the store, the toolsets), and
 * under `serve`, `mcpServer`'s but `authenticate` (`--token-env` or `--unauthenticated`). Flags win over
 * `serve`: `--agent` over `serve.agent`, `--wait-ms` and `--progress-ms` over `serve.approvals`, and so on.
 */
export interface ServeConfig extends Omit<WardrikOptions, 'store' | 'toolsets' | 'tools' | 'container'> {
  /** How the tools are served: the agent calls run as, its rules and budget, approvals, HTTP limits. */
  readonly serve?: Omit<ServeOptions, 'tools' | 'authenticate'> & {
    /** Patterns of the tools to serve, when `--tools` is not given: all unless set. */
    readonly tools?: readonly string[];
  };
}

/** A checked config and where it came from, for messages. */
export interface LoadedServeConfig {
  /** Such as `wardrikOptions exported by /srv/app/dist/tools.js`, or `--config /srv/app/serve.json`. */
  readonly source: string;
  readonly config: ServeConfig;
}

/** Every option a config may give, so that a typo is refused rather than ignored (the compiler keeps these whole). */
const CONFIG_KEYS: Readonly<Record<keyof ServeConfig, true>> = {
  policy: true,
  runner: true,
  recoverMs: true,
  mcp: true,
  agents: true,
  retention: true,
  audit: true,
  serve: true,
};
const SERVE_KEYS: Readonly<Record<keyof NonNullable<ServeConfig['serve']>, true>> = {
  tools: true,
  names: true,
  name: true,
  version: true,
  instructions: true,
  identify: true,
  agent: true,
  policy: true,
  budgetUsd: true,
  maxCalls: true,
  approvals: true,
  http: true,
  stateKey: true,
  deferred: true,
};
/** Options of the library the command sets itself, and what to do instead. */
const SET_BY_THE_COMMAND: Readonly<Record<string, string>> = {
  store: 'the store is --store URL (or $WARDRIK_STORE)',
  toolsets: 'the command serves the toolsets MODULE exports',
  tools:
    'the command serves the tools MODULE exports (their toolset name is --toolset; to serve fewer, set serve.tools or pass --tools)',
  container: 'the command builds its own container',
  'serve.authenticate': 'over --http, pass --token-env NAME or --unauthenticated',
};
/** A config file is a few rules and numbers: anything near this size is not one. */
const MAX_CONFIG_BYTES = 1024 * 1024;

/**
 * The options `wardrik serve` runs with: the module's `wardrikOptions` export, or `--config FILE`
 * (never both: one of them would be silently ignored), or none. Checks their shape now, naming the
 * option and the fix; the values are then checked by `Wardrik.create` and `mcpServer` as usual.
 */
export function serveConfig(
  module: { readonly path: string; readonly wardrikOptions: unknown },
  configFile: string | undefined,
): LoadedServeConfig | undefined {
  if (configFile !== undefined && module.wardrikOptions !== undefined) {
    throw new CliError(
      ExitCode.usage,
      `${module.path} exports wardrikOptions and --config ${configFile} was given: one would be ignored. Pass --config only for a module without wardrikOptions, or leave it out.`,
    );
  }
  if (configFile !== undefined) {
    const path = resolve(configFile);
    const source = `--config ${path}`;
    return { source, config: check(readJson(path), '', source) };
  }
  if (module.wardrikOptions === undefined) return undefined;
  const source = `wardrikOptions exported by ${module.path}`;
  return { source, config: check(module.wardrikOptions, 'wardrikOptions.', source) };
}

function readJson(path: string): unknown {
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    throw new CliError(ExitCode.notFound, `--config ${path}: no such file. Pass the path of a JSON file of options.`);
  }
  if (size > MAX_CONFIG_BYTES)
    throw new CliError(
      ExitCode.usage,
      `--config ${path} is ${size} bytes, over the ${MAX_CONFIG_BYTES} a config may have. Pass a JSON file of options.`,
    );
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as unknown;
  } catch (error) {
    throw new CliError(ExitCode.usage, `--config ${path} is not JSON: ${(error as Error).message}. Correct the file.`, {
      cause: error,
    });
  }
}

/**
 * Refuses what is no object, an option the command sets itself, an unknown key (naming the closest) and
 * a bad number of serving. `prefix` is how the config's fields are named (`wardrikOptions.` in a module).
 */
function check(value: unknown, prefix: string, source: string): ServeConfig {
  const fix = `Correct ${source}.`;
  if (!isObject(value))
    throw usage(
      `${prefix || 'The config'} must be an object of options, such as { "serve": { "budgetUsd": 5 } }. ${fix}`,
    );
  checkKeys(value, Object.keys(CONFIG_KEYS), prefix, '', fix);
  if (value.serve !== undefined) {
    if (!isObject(value.serve))
      throw usage(`${prefix}serve must be an object, such as { "agent": "desktop", "budgetUsd": 5 }. ${fix}`);
    checkKeys(value.serve, Object.keys(SERVE_KEYS), prefix, 'serve.', fix);
    try {
      // The number options of serving, each declared once; checked here to name them as the config spells them.
      readNumbers(`${prefix}serve.`, value.serve, SERVE_NUMBERS);
    } catch (error) {
      if (error instanceof ConfigurationError) throw usage(`${error.message} ${fix}`, error);
      throw error;
    }
  }
  return value as ServeConfig;
}

function checkKeys(value: object, keys: readonly string[], prefix: string, under: string, fix: string): void {
  for (const key of Object.keys(value)) {
    if (keys.includes(key)) continue;
    const path = `${under}${key.slice(0, 60)}`;
    const instead = SET_BY_THE_COMMAND[path];
    if (instead !== undefined) throw usage(`${prefix}${path} is not taken by wardrik serve: ${instead}. ${fix}`);
    const [nearest] = closestNames(key, keys, 1);
    const near =
      nearest !== undefined && editDistance(key.toLowerCase(), nearest.toLowerCase()) <= Math.max(2, key.length / 3);
    throw usage(
      `${prefix}${path} is not an option of wardrik serve.${near ? ` Did you mean ${under}${nearest}?` : ''} ` +
        `${under === '' ? 'Its options are' : `${under.slice(0, -1)} takes`} ${keys.join(', ')}. ${fix}`,
    );
  }
}

function usage(message: string, cause?: unknown): CliError {
  return new CliError(ExitCode.usage, message, cause === undefined ? undefined : { cause });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
