import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { isWardrikName } from '../inbox/wardrik-names.js';
import { CommandContext, DEFAULT_STORE, type Io } from './context.js';
import { classify, ExitCode, type ExitCodeValue } from './errors.js';
import type { ApproveFlags } from './inbox-commands.js';
import type { McpAddOptions } from './mcp-commands.js';
import { age, prune } from './prune-command.js';
import { since } from './audit-since.js';
import type { AuditListOptions } from '../store/audit-log.js';
import type { ServeCommandOptions } from './serve-command.js';
import type { WebCommandOptions } from './web-command.js';

const EXIT_CODES = `
Exit codes:
  0  ok
  1  unexpected error
  2  bad usage: unknown command or option, a bad argument, bad JSON, a bad store URL
  3  not found: no such inbox item, run, module or MCP server
  4  conflict: already answered, or the digest is not the call's (nothing was done)
  5  store unreachable or failing: a missing SQLite file, PostgreSQL down, a disk error
  6  the audit trail does not verify: an entry was changed, removed or moved
  7  wardrik policy test: a row's decision is not the one it expects

The store is --store URL, else $WARDRIK_STORE, else ${DEFAULT_STORE} (as the library).
Options --store and --json go before or after the command; for \`answer\`, whose own
--json takes the value, put the output flag first: wardrik --json answer ID --json VALUE.
With --json, results are one line of JSON on stdout, and errors one line of JSON on stderr:
{"error":{"code":"not_found","exitCode":3,"message":"…"}}.
`;

/**
 * Runs the `wardrik` command line (`argv` without node and the script) and resolves to its exit code.
 * Everything goes through `io`, so tests can run it in process as well as through the binary.
 * Each command's module is imported when it runs: `wardrik serve --stdio` is started by MCP clients that
 * give it a few seconds to answer, and should not first load the modules of the other commands (the MCP
 * hub that `wardrik mcp` uses, among them; startup.bench.ts).
 */
export async function runCli(argv: readonly string[], io: Io): Promise<ExitCodeValue> {
  const program = new Command('wardrik');
  // Set once a command's options are read. For a usage error, commander's, it is guessed from argv:
  // any --json except the value option of `answer` (which comes after the word answer).
  const answerAt = argv.indexOf('answer');
  let json = argv.some((arg, i) => arg === '--json' && (answerAt < 0 || i < answerAt));
  const context = (command: Command, ownJson = true): CommandContext => {
    const merged: Record<string, unknown> = {};
    for (let at: Command | null = command; at !== null; at = at.parent) {
      for (const [key, value] of Object.entries(at.opts()))
        if (value !== undefined && !(key in merged)) merged[key] = value;
    }
    json = ownJson ? merged.json === true : program.opts().json === true;
    const given = merged.store as string | undefined;
    const fromEnv = nonEmpty(io.env.WARDRIK_STORE);
    const source = given !== undefined ? '--store' : fromEnv !== undefined ? 'WARDRIK_STORE' : 'the default store';
    return new CommandContext(io, json, given ?? fromEnv ?? DEFAULT_STORE, source);
  };
  const common = (command: Command, withJson = true): Command => {
    command.option(
      '--store <url>',
      `the store: sqlite:PATH, postgres://…?schema=NAME (default $WARDRIK_STORE or ${DEFAULT_STORE})`,
    );
    if (withJson) command.option('--json', 'print one line of JSON, for scripts');
    return command;
  };

  program
    .description('Answer parked calls and look into runs, tools and MCP servers in a Wardrik store.')
    .enablePositionalOptions()
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.out(text),
      writeErr: (text) => io.err(text),
      // With --json a usage error is printed below, as JSON like every other error.
      outputError: (text, write) => (json ? undefined : write(text)),
    })
    .showHelpAfterError(json ? false : '(wardrik --help lists the commands and exit codes)')
    .addHelpText('after', EXIT_CODES);
  common(program);

  common(
    program
      .command('inbox')
      .description('list parked calls waiting for a person: id, kind, tool, arguments, labels, reason, age'),
  )
    .option('--all', 'include items already answered')
    .action(async (options: { all?: boolean }, command: Command) =>
      (await import('./inbox-commands.js')).inboxList(context(command), options),
    );

  common(
    program
      .command('approve')
      .description('approve a parked call; it runs once, on a node that offers its tool')
      .argument('<id>', 'the inbox item id'),
  )
    .option('--by <name>', 'who approves, kept with the answer', person)
    .option('--group <name>', "a group the person is in, checked against the rule's approvers (repeat it)", groups)
    .option(
      '--digest <hex>',
      "the arguments' digest you reviewed (from `wardrik inbox`): refused if the call's differs",
    )
    .option(
      '--arguments <json>',
      "run it with these arguments instead (needs --digest); checked against the tool's schema first",
    )
    .option('--scope <scope>', "'run' also lets later calls of this tool in the same run go without asking")
    .option(
      '--allow-if <fields>',
      "with --scope run: only later calls whose fields (comma-separated) equal this call's",
    )
    .action(async (id: string, options: ApproveFlags, command: Command) =>
      (await import('./inbox-commands.js')).approve(context(command), id, options),
    );

  common(
    program
      .command('deny')
      .description('refuse a parked call; the model reads the reason')
      .argument('<id>', 'the inbox item id'),
  )
    .requiredOption('--reason <text>', 'why, for the model')
    .option('--by <name>', 'who refuses', person)
    .option('--group <name>', "a group the person is in, checked against the rule's approvers (repeat it)", groups)
    .action(async (id: string, options: { reason: string; by?: string; group?: string[] }, command: Command) =>
      (await import('./inbox-commands.js')).deny(context(command), id, options),
    );

  common(
    program
      .command('answer')
      .description("answer a tool's own park with a value, or say whether a call in doubt happened")
      .argument('<id>', 'the inbox item id'),
    false,
  )
    .requiredOption(
      '--json <value>',
      'the answer as JSON; in doubt: {"happened":true,"result":…} or {"happened":false}',
    )
    .option('--by <name>', 'who answers', person)
    .option('--group <name>', "a group the person is in, checked against the rule's approvers (repeat it)", groups)
    .action(async (id: string, options: { json: string; by?: string; group?: string[] }, command: Command) =>
      (await import('./inbox-commands.js')).answer(context(command, false), id, {
        value: options.json,
        ...(options.by === undefined ? {} : { by: options.by }),
        ...(options.group === undefined ? {} : { group: options.group }),
      }),
    );

  common(program.command('runs').description('list runs, most recent first: agent, status, calls, parked, spend'))
    .option('--agent <id>', "only this agent's runs")
    .option('--limit <n>', 'at most this many', positiveInteger, 20)
    .action(async (options: { agent?: string; limit: number }, command: Command) =>
      (await import('./runs-commands.js')).runs(context(command), options),
    );

  common(
    program
      .command('show')
      .description("one run's timeline: its turn and steps, each call with answer, cost and labels; totals")
      .argument('<run>', 'the run id'),
  ).action(async (run: string, _options: unknown, command: Command) =>
    (await import('./runs-commands.js')).show(context(command), run),
  );

  common(
    program
      .command('prune')
      .description(
        'delete finished runs (turns, steps, calls, labels, answered inbox items); parked and in-doubt runs stay',
      ),
  )
    .option('--older-than <age>', 'runs finished longer ago than this, such as 7d, 12h (default 30d)', age)
    .option('--dry-run', 'say what would be deleted, and delete nothing')
    .action(async (options: { olderThan?: number; dryRun?: boolean }, command: Command) =>
      prune(context(command), options),
    );

  const audit = program
    .command('audit')
    .description('the audit trail of decisions and answers (audit in Wardrik.create)');
  common(audit.command('export').description('write the trail as JSON lines, one entry a line, oldest first'))
    .option('--since <n|time>', 'from this entry number, or entries recorded at or after this ISO time', since)
    .action(async (options: { since?: AuditListOptions }, command: Command) =>
      (await import('./audit-commands.js')).auditExport(context(command), options),
    );
  common(audit.command('verify').description('recompute the chain and signatures; name the first entry tampered with'))
    .option('--signing-key <name>', 'the environment variable holding the key, to check signatures too')
    .option('--file <path>', 'check an export of wardrik audit export rather than the store')
    .action(async (options: { signingKey?: string; file?: string }, command: Command) =>
      (await import('./audit-commands.js')).auditVerify(context(command), options),
    );

  common(
    program
      .command('tools')
      .description('describe the toolsets a JavaScript module exports: names, descriptions, JSON Schemas, annotations')
      .argument('<module>', 'path of a compiled module'),
  )
    .option('--toolset <name>', 'the toolset name to show defineTool values under', 'tools')
    .action(async (module: string, options: { toolset: string }, command: Command) =>
      (await import('./tools-command.js')).tools(context(command), module, options),
    );

  const policy = program
    .command('policy')
    .description('Cedar policies: the schema they are checked against, and tables of example calls');
  policy
    .command('schema')
    .description("print the Cedar schema (JSON) generated from a module's toolsets")
    .argument('<module>', 'path of a compiled module that exports toolsets')
    .option('--toolset <name>', 'the toolset name of defineTool values', 'tools')
    .option('--json', 'print one line of JSON, for scripts')
    .action(async (module: string, options: { toolset: string }, command: Command) =>
      (await import('./policy-commands.js')).policySchema(context(command), module, options),
    );
  policy
    .command('test')
    .description('decide each example call of a table (JSON array or JSON lines) and print pass or fail per row')
    .argument(
      '<table>',
      'rows such as {"tool":"orders/refund","arguments":{…},"labels":[],"agent":"support","expected":"allow"}',
    )
    .requiredOption('--module <module>', 'the compiled module with the toolsets (and its wardrikOptions.policy)')
    .option('--policies <file>', "the .cedar file to test (else the module's wardrikOptions.policy.cedar)")
    .option('--toolset <name>', 'the toolset name of defineTool values', 'tools')
    .option('--json', 'print one line of JSON, for scripts')
    .action(async (table: string, options: { module: string; policies?: string; toolset: string }, command: Command) =>
      (await import('./policy-commands.js')).policyTest(context(command), table, options),
    );

  common(
    program
      .command('web')
      .description('serve the inbox in a browser, with its JSON API, until stopped (127.0.0.1 unless --host)'),
  )
    .option('--host <host>', 'the address to listen on', '127.0.0.1')
    .option('--port <port>', 'the port to listen on', port, 8040)
    .option('--public-url <url>', 'where people open the page, for the links in notifications (behind a proxy)')
    .option(
      '--webhook-url <url>',
      'POST a signed message here when an item starts waiting (secret in $WARDRIK_WEBHOOK_SECRET)',
    )
    .option(
      '--people <file>',
      'named people, each with their own token: JSON {"people":[{"id":"ana","tokenSha256":"…"}]} (default $WARDRIK_WEB_PEOPLE)',
    )
    .option(
      '--allowed-host <host>',
      'a Host the page answers to, such as ops.example.com (repeat for more; loopback names only on a loopback bind unless given)',
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option(
      '--trust-proxy <header>',
      "behind a proxy: the header it sets to the client's address, such as x-forwarded-for",
    )
    .action(async (options: WebCommandOptions, command: Command) =>
      (await import('./web-command.js')).web(context(command), options),
    );
  common(
    program
      .command('serve')
      .description(
        "serve the toolsets a module exports to MCP clients, every call through Wardrik's runner, under the options of its wardrikOptions export",
      )
      .argument('<module>', 'path of a compiled module'),
  )
    .option(
      '--stdio',
      'serve one client over stdin/stdout (for Claude Desktop and other clients that start the command)',
    )
    .option('--http <host:port>', 'serve Streamable HTTP at http://HOST:PORT/mcp')
    .option(
      '--tools <pattern>',
      'serve only tools matching this pattern, such as orders/* (repeat for more; all unless given)',
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option('--toolset <name>', 'the toolset name of defineTool values', 'tools')
    .option(
      '--config <file>',
      'a JSON file of options (policy, budgets, serve: { agent, budgetUsd, … }), for a module that exports no wardrikOptions',
    )
    .option('--names <style>', 'qualified (orders__find_order, the default) or bare (find_order)')
    .option(
      '--agent <id>',
      'the agent id calls run as (its policy rules and budget apply; default serve.agent, else mcp)',
    )
    .option('--token-env <name>', 'with --http: the environment variable holding the bearer token clients must send')
    .option('--unauthenticated', 'with --http: serve without a token (loopback, one user)')
    .option(
      '--state-key-env <name>',
      'the environment variable holding the secret (32+ characters, the same on every node) that signs what 2026-07-28 clients carry instead of a session',
    )
    .option('--wait-ms <ms>', 'how long a call that waits for a person is held open', positiveInteger)
    .option('--progress-ms <ms>', 'how often a held call sends the client a progress notification', positiveInteger)
    .option(
      '--allowed-host <host>',
      'with --http: a Host clients connect by, such as mcp.example.com (repeat for more; loopback names only on a loopback bind unless given)',
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option(
      '--trust-proxy <header>',
      "with --http, behind a proxy: the header it sets to the client's address, such as x-forwarded-for",
    )
    .action(async (module: string, options: ServeCommandOptions, command: Command) =>
      (await import('./serve-command.js')).serve(context(command), module, options),
    );

  const mcp = program
    .command('mcp')
    .description("the runtime MCP servers kept in the store, which every node's hub runs");
  common(mcp.command('list').description("list a hub's runtime servers"))
    .option('--hub <name>', 'the hub', 'mcp')
    .action(async (options: { hub: string }, command: Command) =>
      (await import('./mcp-commands.js')).mcpList(context(command), options),
    );
  common(
    mcp
      .command('add')
      .description('add (or replace) a runtime server; checked as hub.add checks it')
      .argument('<name>', 'the server name, also its toolset name'),
  )
    .option('--hub <name>', 'the hub', 'mcp')
    .option('--url <url>', 'a Streamable HTTP server')
    .option('--command <cmd>', 'a stdio server: the program to start')
    .option(
      '--arg <value>',
      'an argument of --command (repeat for more)',
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option('--cwd <dir>', 'the working directory of --command')
    .option('--credential <name>', 'the name of a secret resolved at each connect (never stored)')
    .option('--trusted', 'its answers are not labelled outside')
    .option('--gated', 'every call waits for a person unless a policy allows it')
    .option('--no-gated', 'no call waits for a person unless a policy asks')
    .option('--only <tools>', 'offer only these of its tools, comma-separated')
    .option('--timeout-ms <ms>', "one call's time-out")
    .action(async (name: string, options: McpAddOptions, command: Command) =>
      (await import('./mcp-commands.js')).mcpAdd(context(command), name, options),
    );
  common(mcp.command('remove').description('remove a runtime server').argument('<name>', 'the server name'))
    .option('--hub <name>', 'the hub', 'mcp')
    .action(async (name: string, options: { hub: string }, command: Command) =>
      (await import('./mcp-commands.js')).mcpRemove(context(command), name, options),
    );

  try {
    if (argv.length === 0) {
      program.outputHelp();
      return ExitCode.usage;
    }
    await program.parseAsync([...argv], { from: 'user' });
    return ExitCode.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version are not failures; commander has already printed its message for the rest, unless --json.
      if (
        error.code === 'commander.helpDisplayed' ||
        error.code === 'commander.help' ||
        error.code === 'commander.version'
      )
        return ExitCode.ok;
      if (json)
        io.err(
          `${JSON.stringify({ error: { code: 'usage', exitCode: ExitCode.usage, message: error.message.replace(/^error: /, '') } })}\n`,
        );
      return ExitCode.usage;
    }
    const { exitCode, code } = classify(error);
    const message = (error as Error)?.message ?? String(error);
    io.err(json ? `${JSON.stringify({ error: { code, exitCode, message } })}\n` : `wardrik: ${message}\n`);
    if (exitCode === ExitCode.unexpected && !json && (error as Error)?.stack !== undefined)
      io.err(`${(error as Error).stack}\n`);
    return exitCode;
  }
}

function positiveInteger(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1)
    throw new InvalidArgumentError('a whole number of at least 1 is needed.');
  return Number(value);
}

function port(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 65_535)
    throw new InvalidArgumentError('a port number from 0 to 65535 is needed (0: any free port).');
  return Number(value);
}

/** `--group`, repeated: every group given, in order. */
function groups(value: string, earlier: string[] | undefined): string[] {
  return [...(earlier ?? []), value];
}

/** `--by`: the name recorded with an answer, never one Wardrik records for itself. */
function person(value: string): string {
  if (isWardrikName(value))
    throw new InvalidArgumentError(
      'that name looks like one Wardrik records for itself (it starts with "wardrik"); give your own.',
    );
  return value;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
