import type { Wardrik } from '../di/wardrik.js';
import { ConflictError, InvalidAnswerError, NotFoundError, type ConflictData } from '../errors.js';
import { whoMayAnswer } from '../inbox/permissions.js';
import { questionOf } from '../inbox/question.js';
import type { InboxRecord } from '../store/store.js';
import type { ToolAnswer } from '../tools/result.js';
import { answerText } from '../tools/result.js';
import type { CommandContext } from './context.js';
import { classify, CliError, ExitCode } from './errors.js';
import { age, compact, indent, list, shellQuote, time } from './format.js';

const KIND_WORDS: Readonly<Record<InboxRecord['kind'], string>> = {
  approval: 'asks for approval',
  tool_change: "an MCP tool's definition changed: approving accepts the new one and runs the call",
  question:
    'an MCP server asks a question during a call: answer {"action":"accept","content":{…}}, or decline or cancel',
  authorize: 'an MCP server needs a person to sign in: open the URL',
  park: "the tool's own park: answer it with a value",
  in_doubt: 'a crash left it in doubt: say whether it happened',
};

/** `wardrik inbox [--all]`: parked calls waiting for a person (and, with --all, those answered). */
export async function inboxList(ctx: CommandContext, options: { readonly all?: boolean }): Promise<void> {
  const items = await ctx.withStore((store) => store.listInbox({ all: options.all === true }));
  const now = ctx.io.now();
  ctx.print(
    { store: ctx.storeName, items: items.map((item) => ({ ...item, ageMs: Math.max(0, now - item.createdAt) })) },
    () => {
      const pending = items.filter((item) => item.status === 'pending').length;
      if (items.length === 0) return `The inbox is empty (store ${ctx.storeName}): no call waits for a person.`;
      const head =
        options.all === true
          ? `${items.length} inbox items, ${pending} pending (store ${ctx.storeName}):`
          : `${pending} pending (store ${ctx.storeName}):`;
      return [head, ...items.map((item) => describeItem(item, now))].join('\n\n');
    },
  );
}

function describeItem(item: InboxRecord, now: number): string {
  const lines = [
    `${item.id}  ${item.kind}  ${item.tool}  ${age(item.createdAt, now)}${item.status === 'pending' ? '' : `  [${item.status}${item.by === undefined ? '' : ` by ${item.by}`}]`}`,
    `  arguments: ${compact(item.arguments, 400)}`,
    `  labels:    ${list(item.labels)}`,
    `  reason:    ${item.reason}`,
    ...(item.decidedBy === undefined ? [] : [`  decided by: ${item.decidedBy}`]),
    `  agent ${item.agent} · run ${item.run} · call ${item.call} · digest ${item.digest}`,
  ];
  if (item.edited !== undefined)
    lines.splice(
      2,
      0,
      `  ran with:  ${compact(item.edited.arguments, 400)}${item.edited.by === undefined ? '' : ` (changed by ${item.edited.by})`}`,
    );
  if (item.scope === 'run')
    lines.push(
      `  approved for the rest of run ${item.run}${item.allowIf?.length ? `, while ${item.allowIf.join(', ')} stay the same` : ''}`,
    );
  if (item.answerers !== undefined) {
    const quorum = item.answerers.quorum ?? 1;
    lines.push(`  who may:   ${whoMayAnswer(item)}`);
    if (item.status === 'pending' && quorum > 1)
      lines.push(
        `  approved:  ${(item.approvals ?? []).map((given) => given.by).join(', ') || 'nobody yet'} (${item.approvals?.length ?? 0} of ${quorum})${item.edited === undefined ? '' : `; approve digest ${item.edited.digest}, the changed arguments`}`,
      );
  }
  const question = item.kind === 'question' ? questionOf(item.detail) : undefined;
  if (question?.requestedSchema !== undefined) lines.push(`  asks for:  ${compact(question.requestedSchema, 600)}`);
  if (question?.url !== undefined) lines.push(`  open:      ${question.url}`);
  if (item.status === 'pending') {
    lines.push(`  ${KIND_WORDS[item.kind]}:`);
    if (item.kind === 'approval') {
      lines.push(
        `    wardrik approve ${item.id}`,
        `    wardrik approve ${item.id} --digest ${item.digest} --arguments '{…}'   (run it with changed arguments)`,
        `    wardrik approve ${item.id} --scope run [--allow-if FIELD,…]   (and later such calls of this run)`,
        `    wardrik deny ${item.id} --reason "…"`,
      );
    } else if (item.kind === 'tool_change') {
      lines.push(`    wardrik approve ${item.id}`, `    wardrik deny ${item.id} --reason "…"`);
    } else if (item.kind === 'question') {
      lines.push(
        `    wardrik answer ${item.id} --json '{"action":"accept","content":{…}}'   (fields left out take the schema's defaults)`,
        `    wardrik answer ${item.id} --json '{"action":"decline"}'   (or "cancel")`,
      );
    } else if (item.kind === 'in_doubt') {
      lines.push(
        `    wardrik answer ${item.id} --json '{"happened":true,"result":…}'   (it happened: record its result)`,
        `    wardrik answer ${item.id} --json '{"happened":false}'             (it did not: run it now, once)`,
        `    wardrik deny ${item.id} --reason "…"`,
      );
    } else {
      lines.push(`    wardrik answer ${item.id} --json VALUE`, `    wardrik deny ${item.id} --reason "…"`);
    }
  }
  return lines.join('\n');
}

/** What `wardrik approve` takes besides the id. */
export interface ApproveFlags {
  readonly by?: string;
  /** `--group`: the groups the person is in, checked against the rule's `approvers`. */
  readonly group?: readonly string[];
  readonly digest?: string;
  readonly arguments?: string;
  readonly scope?: string;
  readonly allowIf?: string;
}

/** `wardrik approve ID [--by NAME] [--digest HEX] [--arguments JSON] [--scope run [--allow-if FIELDS]]` */
export async function approve(ctx: CommandContext, id: string, options: ApproveFlags): Promise<void> {
  if (options.digest !== undefined && !/^[0-9a-f]{64}$/.test(options.digest)) {
    throw new CliError(
      ExitCode.usage,
      `--digest must be the item's whole SHA-256 digest, 64 hex digits, as \`wardrik inbox\` shows it; got ${JSON.stringify(options.digest)}.`,
    );
  }
  if (options.arguments !== undefined && options.digest === undefined) {
    throw new CliError(
      ExitCode.usage,
      '--arguments needs --digest: the digest of the arguments you changed, as `wardrik inbox` shows it, so the change applies to what you saw.',
    );
  }
  if (options.scope !== undefined && options.scope !== 'run' && options.scope !== 'call') {
    throw new CliError(
      ExitCode.usage,
      `--scope is "run" (later calls of this tool in the same run go too) or "call" (the default); got ${JSON.stringify(options.scope)}.`,
    );
  }
  if (options.allowIf !== undefined && options.scope !== 'run')
    throw new CliError(ExitCode.usage, '--allow-if applies to approvals for the rest of the run: add --scope run.');
  const edited = options.arguments === undefined ? undefined : parseJson('--arguments', options.arguments);
  const allowIf = (options.allowIf ?? '')
    .split(',')
    .map((field) => field.trim())
    .filter((field) => field !== '');
  await ctx.withWardrik(async (wardrik) => {
    const answer = await answering(ctx, wardrik, id, 'approve', () =>
      wardrik.inbox.approve(id, {
        ...(options.by === undefined ? {} : { by: options.by }),
        ...(options.group === undefined ? {} : { groups: options.group }),
        ...(options.digest === undefined ? {} : { digest: options.digest }),
        ...(edited === undefined ? {} : { arguments: edited }),
        ...(options.scope === 'run' ? { scope: 'run' as const, allowIf } : {}),
      }),
    );
    report(ctx, await answered(wardrik, id), 'approved', options.by, answer);
  });
}

/** `wardrik deny ID --reason TEXT [--by NAME]` */
export async function deny(
  ctx: CommandContext,
  id: string,
  options: { readonly reason: string; readonly by?: string; readonly group?: readonly string[] },
): Promise<void> {
  if (options.reason.trim() === '')
    throw new CliError(ExitCode.usage, '--reason must say why: the model reads it to decide what to do next.');
  await ctx.withWardrik(async (wardrik) => {
    const answer = await answering(ctx, wardrik, id, 'deny', () =>
      wardrik.inbox.deny(id, {
        reason: options.reason,
        ...(options.by === undefined ? {} : { by: options.by }),
        ...(options.group === undefined ? {} : { groups: options.group }),
      }),
    );
    report(ctx, await answered(wardrik, id), 'denied', options.by, answer);
  });
}

/** `wardrik answer ID --json VALUE [--by NAME]` */
export async function answer(
  ctx: CommandContext,
  id: string,
  options: { readonly value: string; readonly by?: string; readonly group?: readonly string[] },
): Promise<void> {
  const value = parseJson('--json', options.value);
  await ctx.withWardrik(async (wardrik) => {
    const result = await answering(ctx, wardrik, id, 'answer', () =>
      wardrik.inbox.answer(id, value, {
        ...(options.by === undefined ? {} : { by: options.by }),
        ...(options.group === undefined ? {} : { groups: options.group }),
      }),
    );
    const item = await answered(wardrik, id);
    report(
      ctx,
      item,
      item.kind === 'in_doubt' && (value as { happened: boolean }).happened === false ? 'approved' : 'answered',
      options.by,
      result,
    );
  });
}

/**
 * Gives the inbox a person's answer. The inbox decides whether the item takes it; its refusal is put in
 * the command's words here, and `classify` picks the exit code from the error (a conflict's `reason`).
 */
async function answering(
  ctx: CommandContext,
  wardrik: Wardrik,
  id: string,
  verb: 'approve' | 'deny' | 'answer',
  give: () => Promise<ToolAnswer>,
): Promise<ToolAnswer> {
  try {
    return await give();
  } catch (error) {
    const words = await commandWords(ctx, wardrik, error, id, verb);
    throw words === undefined ? error : new CliError(classify(error).exitCode, words, { cause: error });
  }
}

/** What the command says instead of the inbox's message (which names inbox methods), if anything. */
async function commandWords(
  ctx: CommandContext,
  wardrik: Wardrik,
  error: unknown,
  id: string,
  verb: 'approve' | 'deny' | 'answer',
): Promise<string | undefined> {
  if (error instanceof NotFoundError)
    return `No inbox item "${id}" to ${verb} in store ${ctx.storeName}. \`wardrik inbox\` lists the pending ones with their ids; check the id, or pass the --store your app uses.`;
  if (error instanceof InvalidAnswerError && verb === 'answer' && (await wardrik.inbox.get(id))?.kind === 'in_doubt')
    return `Inbox item "${id}" is a call a crash left in doubt; say whether it happened: --json '{"happened":true,"result":…}' records the result without running it, --json '{"happened":false}' runs it now, once.`;
  if (!(error instanceof ConflictError)) return undefined;
  if (error.is('already_answered')) return answeredWords(error.data);
  if (error.is('wrong_kind'))
    return verb === 'approve' ? notAnApproval(id, error.data.kind) : notForAValue(id, error.data.kind);
  return undefined;
}

function answeredWords({ item, status, by, answeredAt }: ConflictData['already_answered']): string {
  const when = answeredAt === undefined ? '' : ` at ${time(answeredAt)}`;
  return `Inbox item "${item}" was already ${status}${by === undefined ? '' : ` by ${by}`}${when}; nothing was done. Each item is answered once.`;
}

function notAnApproval(id: string, kind: string): string {
  const deny = `, or refuse it: wardrik deny ${id} --reason "…".`;
  const head = (what: string): string => `Inbox item "${id}" is ${what}, not an approval, so it cannot be approved. `;
  if (kind === 'park') return `${head("a tool's own park")}Answer it: wardrik answer ${id} --json VALUE${deny}`;
  if (kind === 'question')
    return `${head('a question an MCP server asks')}Answer it: wardrik answer ${id} --json '{"action":"accept","content":{…}}' (or decline, cancel)${deny}`;
  if (kind === 'authorize')
    return `${head('a sign-in an MCP server needs')}Open its URL (\`wardrik inbox\` shows it): the sign-in completes it${deny}`;
  return `${head('a call left in doubt by a crash')}Say whether it happened: wardrik answer ${id} --json '{"happened":false}' (or true with a result)${deny}`;
}

function notForAValue(id: string, kind: string): string {
  return kind === 'authorize'
    ? `Inbox item "${id}" asks a person to sign in, not for a value: open its URL (\`wardrik inbox\` shows it), or wardrik deny ${id} --reason "…".`
    : `Inbox item "${id}" asks for approval, not for a value: wardrik approve ${id}, or wardrik deny ${id} --reason "…".`;
}

/** The item just answered, for the report (answered items are kept, so it is there). */
async function answered(wardrik: Wardrik, id: string): Promise<InboxRecord> {
  return (await wardrik.inbox.get(id))!;
}

function report(
  ctx: CommandContext,
  item: InboxRecord,
  status: 'approved' | 'denied' | 'answered',
  by: string | undefined,
  result: ToolAnswer,
): void {
  // The answer is `parked` when the call waits for a node that offers its tool to run it.
  const waiting = result.status === 'parked';
  ctx.print(
    {
      id: item.id,
      status,
      ...(by === undefined ? {} : { by }),
      kind: item.kind,
      tool: item.tool,
      agent: item.agent,
      run: item.run,
      call: item.call,
      pending: waiting,
      answer: result,
      ...(item.answerers?.quorum === undefined
        ? {}
        : { approvals: item.approvals?.length ?? 0, quorum: item.answerers.quorum }),
    },
    () => {
      const who = by === undefined ? '' : ` by ${by}`;
      const head = `${status[0]!.toUpperCase()}${status.slice(1)}${who}: ${item.id} (${item.tool} ${compact(item.arguments, 200)}).`;
      if (waiting && item.status === 'pending') return `${head}\n${result.reason}\nFollow it with: wardrik inbox`;
      if (waiting) {
        return (
          `${head}\nIt runs on the next node that offers ${item.tool}, at its next recovery (every recoverMs); the agent's turn then goes on.\n` +
          `Follow it with: wardrik show ${shellQuote(item.run)}`
        );
      }
      return `${head}\nThe call's answer, as the model reads it:\n${indent(answerText(result), 2)}`;
    },
  );
}

function parseJson(flag: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new CliError(
      ExitCode.usage,
      `${flag} must be a JSON value; ${JSON.stringify(compact(text, 80))} is not (${(error as Error).message}). ` +
        `Quote it for the shell, and strings as JSON: ${flag} '{"amountCents":1200}' or ${flag} '"a text"'.`,
    );
  }
}
