import { execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { redact } from '../src/store/open-store.js';

/**
 * `npm test`'s entry: every compiled test file under node's test runner, against the PostgreSQL the tests
 * are pointed at (WARDRIK_TEST_POSTGRES_URL, else 127.0.0.1:5432 database "test"). When none answers, it
 * starts a throwaway cluster of its own (initdb in a temporary folder, a free port), points the tests at it
 * and removes it after, so the test command needs nothing started by hand. Without PostgreSQL's binaries it
 * stops at once and says how to install them: the PostgreSQL tests fail rather than skip. So does a
 * machine without the Chromium that the inbox page's tests drive.
 */
const DEFAULT_URL = 'postgres://postgres@127.0.0.1:5432/test';
const INSTALL = 'apt-get install -y postgresql';
const CHROMIUM = process.env.WARDRIK_TEST_CHROMIUM ?? '/usr/bin/chromium';

async function reachable(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The newest installed PostgreSQL's bin folder, as Debian lays them out, or undefined. */
function postgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((version) => existsSync(join(root, version, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : join(root, versions[0], 'bin');
}

interface Cluster {
  url: string;
  stop(): void;
}

function startCluster(bin: string): Cluster {
  const dir = mkdtempSync(join(tmpdir(), 'wardrik-test-pg-'));
  const data = join(dir, 'data');
  const port = 56_000 + Math.floor(Math.random() * 4_000);
  // PostgreSQL refuses to run as root: as root, the cluster belongs to the postgres user the package made.
  const asRoot = process.getuid?.() === 0;
  if (asRoot) chownSync(dir, Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim()), -1);
  const run = (command: string, args: string[]): void => {
    const [file, argv] = asRoot
      ? ['runuser', ['-u', 'postgres', '--', join(bin, command), ...args]]
      : [join(bin, command), args];
    execFileSync(file, argv, { stdio: ['ignore', 'ignore', 'pipe'] });
  };
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres']);
  run('pg_ctl', [
    'start',
    '-D',
    data,
    '-o',
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`,
    '-l',
    join(dir, 'log'),
    '-w',
  ]);
  run('createdb', ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', 'test']);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/test`,
    stop() {
      try {
        run('pg_ctl', ['stop', '-D', data, '-m', 'fast', '-w']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) =>
      entry.isDirectory()
        ? testFiles(join(dir, entry.name))
        : entry.name.endsWith('.test.js')
          ? [join(dir, entry.name)]
          : [],
    )
    .sort();
}

async function main(): Promise<number> {
  if (!existsSync(CHROMIUM)) {
    console.error(
      `Chromium is not installed at ${CHROMIUM}; the inbox page's tests drive it. Install it with: apt-get install -y chromium (or set WARDRIK_TEST_CHROMIUM).`,
    );
    return 1;
  }
  const url = process.env.WARDRIK_TEST_POSTGRES_URL ?? DEFAULT_URL;
  let cluster: Cluster | undefined;
  if (!(await reachable(url))) {
    const bin = postgresBin();
    if (bin === undefined) {
      console.error(
        `PostgreSQL is not reachable at ${redact(url)} and no PostgreSQL is installed to start one for the tests. Install it with: ${INSTALL}`,
      );
      return 1;
    }
    console.error(
      `PostgreSQL is not reachable at ${redact(url)}: starting a throwaway cluster from ${bin} for this run.`,
    );
    cluster = startCluster(bin);
  }
  // `node dist/test/run-suite.js store runner` runs only those folders' tests (CI's second Node line does).
  const root = fileURLToPath(new URL('.', import.meta.url));
  const folders = process.argv.slice(2);
  const files = folders.length === 0 ? testFiles(root) : folders.flatMap((folder) => testFiles(join(root, folder)));
  const env = cluster === undefined ? process.env : { ...process.env, WARDRIK_TEST_POSTGRES_URL: cluster.url };
  // A test that hangs fails by name after five minutes, instead of holding the run until CI gives up on it.
  const child = spawn(process.execPath, ['--test', '--test-concurrency=2', '--test-timeout=300000', ...files], {
    stdio: 'inherit',
    env,
  });
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  process.on('SIGINT', forward).on('SIGTERM', forward);
  const code = await new Promise<number>((resolve) =>
    child.on('exit', (status, signal) => resolve(status ?? (signal === null ? 1 : 128))),
  );
  cluster?.stop();
  return code;
}

process.exitCode = await main();
