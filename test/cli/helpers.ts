import 'reflect-metadata';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { defineTool, park, Tokens, ToolResult, Wardrik } from '../../src/index.js';
import { scriptedModel } from '../../src/testing/index.js';
import { writeCall } from '../../src/store/journal-writes.js';

/** The real binary, as `npm run wardrik` and the package's `bin` run it. */
export const CLI = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

export const POSTGRES_URL = process.env.WARDRIK_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `wardrik ARGS` as a child process and resolves when it exits. A run that takes longer than
 * `timeoutMs` is killed and rejected with what it printed so far, so a hang fails with a reason.
 */
export function wardrik(
  args: readonly string[],
  options: {
    readonly cwd?: string;
    readonly env?: Record<string, string | undefined>;
    readonly timeoutMs?: number;
  } = {},
): Promise<CliResult> {
  const env: Record<string, string | undefined> = { ...process.env, WARDRIK_STORE: undefined, ...options.env };
  for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: options.cwd ?? process.cwd(),
      env: env as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(
          `wardrik ${args.join(' ')} did not exit within ${options.timeoutMs ?? 30_000} ms.\nstdout: ${stdout}\nstderr: ${stderr}`,
        ),
      );
    }, options.timeoutMs ?? 30_000);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Parses the one line of JSON a `--json` command prints. */
export function json<T = Record<string, unknown>>(result: CliResult): T {
  try {
    return JSON.parse(result.stdout) as T;
  } catch (error) {
    throw new Error(`Not one line of JSON (exit ${result.code}): ${result.stdout}\nstderr: ${result.stderr}`, {
      cause: error,
    });
  }
}

/** A PostgreSQL schema of the test's own, and a way to drop every schema made this way. */
export function postgresSchemas() {
  const prefix = `wardrik_cli_${randomBytes(5).toString('hex')}`;
  let n = 0;
  return {
    url: () => `${POSTGRES_URL}?schema=${prefix}_${++n}`,
    async dropAll(): Promise<void> {
      const admin = new pg.Pool({ connectionString: POSTGRES_URL, max: 1, connectionTimeoutMillis: 5_000 });
      try {
        const { rows } = await admin.query<{ nspname: string }>(
          'SELECT nspname FROM pg_namespace WHERE nspname LIKE $1',
          [`${prefix}%`],
        );
        for (const { nspname } of rows) await admin.query(`DROP SCHEMA "${nspname}" CASCADE`);
      } finally {
        await admin.end();
      }
    },
  };
}

/** The shop a seeding node offers: a paid read-only lookup labelled outside, a paid refund that asks, a tool that parks itself, an email. */
export function shopTools(ran: string[] = []) {
  return [
    defineTool({
      name: 'lookup',
      description: 'Look an order up.',
      input: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'], additionalProperties: false },
      annotations: { readOnly: true },
      run: ({ id }: { id: string }, ctx) => {
        ctx.cost(0.1);
        return new ToolResult({ id, status: 'shipped' }, { labels: ['outside'] });
      },
    }),
    defineTool({
      name: 'refund',
      description: 'Refund an order.',
      input: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'], additionalProperties: false },
      run: ({ id }: { id: string }, ctx) => {
        ctx.cost(0.25);
        ran.push(`refund:${id}`);
        return { refunded: id };
      },
    }),
    defineTool({
      name: 'ask_amount',
      description: 'Ask a person how much to refund.',
      annotations: { readOnly: true },
      run: () => park('How much should be refunded?'),
    }),
    defineTool({
      name: 'send_email',
      description: 'Send an email.',
      input: { type: 'object', properties: { to: { type: 'string' } }, required: ['to'], additionalProperties: false },
      run: ({ to }: { to: string }) => {
        ran.push(`email:${to}`);
        return { sent: to };
      },
    }),
  ];
}

/** What `seed` left in the store, by name. */
export interface Seeded {
  /** A node that offers the shop's tools (recovery only when asked), to check what happens after the CLI. */
  readonly node: Wardrik;
  readonly ran: string[];
  /** The agent turn: lookup (paid, outside), then a refund that waits for approval. */
  readonly turn: { readonly run: string; readonly approval: string };
  /** Calls made through runner.run in run "batch-…": a refund parked for approval, a park, a call in doubt. */
  readonly batch: { readonly run: string; readonly approval: string; readonly park: string; readonly inDoubt: string };
}

/** Parks calls of every kind, and one agent turn, in the store at `url`, through the library. */
export async function seed(url: string): Promise<Seeded> {
  const ran: string[] = [];
  const node = await Wardrik.create({
    store: url,
    tools: { shop: shopTools(ran) },
    recoverMs: Infinity,
    runner: { retry: { baseDelayMs: 1, maxDelayMs: 2 } },
    // Labels on the run: the turn's answers are journaled in clear and its items carry the run's `outside`,
    // which the commands' tests read (labels on values would show the lookup as a handle).
    policy: { labels: 'run' },
  });
  const model = scriptedModel(
    [
      {
        text: 'Looking it up.',
        toolCalls: [{ name: 'shop__lookup', arguments: { id: 'ord_1' } }],
        usage: { inputTokens: 1000, outputTokens: 100 },
      },
      {
        text: 'Refunding it.',
        toolCalls: [{ name: 'shop__refund', arguments: { id: 'ord_1' } }],
        usage: { inputTokens: 1000, outputTokens: 100 },
      },
      { text: 'Refunded.', usage: { inputTokens: 1000, outputTokens: 100 } },
    ],
    { name: 'cli-test' },
  );
  const agent = node.startAgent({
    id: 'support',
    model,
    tools: ['shop/*'],
    budgetUsd: 10,
    price: { inputPerMTok: 1, outputPerMTok: 5 },
  });
  const result = await agent.send('Refund ord_1, please.');
  if (result.status !== 'parked')
    throw new Error(`The seeded turn should park; it is ${result.status}: ${result.error ?? result.text}`);
  const batch = `batch-${randomBytes(4).toString('hex')}`;
  const call = async (id: string, name: string, args?: unknown): Promise<string> => {
    const answer = await node.runner.run({
      agent: 'batch',
      run: batch,
      call: { id, name, ...(args === undefined ? {} : { arguments: args }) },
    });
    if (answer.status !== 'parked' || answer.inboxId === undefined)
      throw new Error(`Call ${id} should park; it answered ${JSON.stringify(answer)}`);
    return answer.inboxId;
  };
  await node.runner.run({
    agent: 'batch',
    run: batch,
    call: { id: 'c0', name: 'shop__lookup', arguments: { id: 'ord_2' } },
  });
  const approval = await call('c1', 'shop__refund', { id: 'ord_2' });
  const parkId = await call('c2', 'shop__ask_amount');
  // A call a crash left in flight: `started` in the journal and nobody running it. Recovery parks it in doubt.
  const store = node.container.resolve(Tokens.Store);
  await writeCall(
    store,
    {
      run: batch,
      call: 'c3',
      agent: 'batch',
      tool: 'shop/send_email',
      arguments: { to: 'a@example.com' },
      idempotencyKey: `${batch}:c3`,
      state: 'started',
      attempt: 1,
      updatedAt: Date.now(),
    },
    undefined,
  );
  await node.recover();
  const inDoubt = (await node.inbox.list()).find((item) => item.kind === 'in_doubt' && item.run === batch)?.id;
  if (inDoubt === undefined) throw new Error('Recovery should have parked c3 in doubt.');
  return {
    node,
    ran,
    turn: { run: result.run, approval: result.parked[0]!.inboxId },
    batch: { run: batch, approval, park: parkId, inDoubt },
  };
}
