import type { StepData } from '../agent/messages.js';
import { readRun, type RunTotals, type TurnData } from '../inbox/run-view.js';
import type { CallRecord, InboxRecord, RunSummary, StepRecord, TurnRecord } from '../store/store.js';
import type { CommandContext } from './context.js';
import { CliError, ExitCode } from './errors.js';
import { age, compact, indent, list, table, time, usd } from './format.js';

/** `wardrik runs [--agent ID] [--limit N]`: the most recent runs first. */
export async function runs(
  ctx: CommandContext,
  options: { readonly agent?: string; readonly limit: number },
): Promise<void> {
  const found = await ctx.withStore(async (store) => {
    const summaries = await store.listRuns({
      ...(options.agent === undefined ? {} : { agent: options.agent }),
      limit: options.limit,
    });
    // An agent turn knows what it spent in all (model and tools); a run of calls only, what its tools did.
    return Promise.all(
      summaries.map(async (summary) => {
        const turn = summary.status === undefined ? undefined : await store.getTurn(summary.run);
        const data = (turn?.data ?? {}) as TurnData;
        return {
          ...summary,
          spentUsd: data.spentUsd ?? summary.costUsd,
          ...(data.model === undefined ? {} : { model: data.model }),
        };
      }),
    );
  });
  const now = ctx.io.now();
  ctx.print({ store: ctx.storeName, runs: found }, () => {
    if (found.length === 0) {
      return options.agent === undefined
        ? `No runs in store ${ctx.storeName} yet.`
        : `No runs of agent "${options.agent}" in store ${ctx.storeName}.`;
    }
    const rows = found.map((run) => [
      run.run,
      run.agent,
      statusOf(run),
      String(run.calls),
      run.parked > 0 ? String(run.parked) : '-',
      usd(run.spentUsd),
      age(run.lastAt, now),
    ]);
    return `${table(['RUN', 'AGENT', 'STATUS', 'CALLS', 'PARKED', 'SPENT', 'LAST'], rows)}\n\n\`wardrik show RUN\` shows one run's timeline.`;
  });
}

function statusOf(run: RunSummary): string {
  if (run.status !== undefined) return run.status;
  return run.parked > 0 ? 'calls (parked)' : 'calls';
}

/** `wardrik show RUN`: the run's turn and steps, each call with its answer, cost and labels; the run's labels; totals. */
export async function show(ctx: CommandContext, run: string): Promise<void> {
  const found = await ctx.withStore((store) => readRun(store, run));
  if (found === undefined) {
    throw new CliError(
      ExitCode.notFound,
      `No run "${run}" in store ${ctx.storeName}: it has no turn and no calls. \`wardrik runs\` lists the runs; check the id, or pass the --store your app uses.`,
    );
  }
  const { turn, steps, calls, inbox, labels, totals } = found;
  ctx.print({ store: ctx.storeName, ...found }, () =>
    timeline(run, turn ?? undefined, steps, calls, inbox, labels, totals, ctx.io.now()),
  );
}

function timeline(
  run: string,
  turn: TurnRecord | undefined,
  steps: readonly StepRecord[],
  calls: readonly CallRecord[],
  inbox: readonly InboxRecord[],
  labels: readonly string[],
  totals: RunTotals,
  now: number,
): string {
  const out: string[] = [];
  const data = (turn?.data ?? {}) as TurnData;
  out.push(`Run ${run}`);
  if (turn !== undefined) {
    out.push(
      `Agent ${turn.agent} · turn ${turn.status} · model ${data.model ?? '?'} · started ${time(turn.createdAt)} (${age(turn.createdAt, now)}) · last written ${time(turn.updatedAt)}`,
    );
    if (data.input !== undefined) out.push(`User: ${compact(data.input, 400)}`);
  } else {
    out.push(`Agent ${calls[0]!.agent} · calls made through runner.run (no agent turn)`);
  }
  if (steps.length > 0) {
    out.push('', 'Steps');
    for (const step of steps) out.push(indent(stepLine(step), 2));
  }
  out.push('', calls.length === 0 ? 'Calls: none' : 'Calls');
  for (const call of calls) {
    out.push(`  ${time(call.updatedAt)}  ${call.call}  ${call.tool} ${compact(call.arguments, 200)}`);
    out.push(`      ${stateLine(call)}`);
    // The rule or policy that decided it, and who answered it; `-` for a call journaled before Wardrik kept it.
    out.push(`      decided by ${call.decidedBy ?? '-'}`);
    // What people said about it: each time it parked, and how the item was answered.
    for (const item of inbox.filter((entry) => entry.call === call.call)) {
      const answered =
        item.status === 'pending'
          ? 'pending'
          : `${item.status}${item.by === undefined ? '' : ` by ${item.by}`}${item.answeredAt === undefined ? '' : ` at ${time(item.answeredAt)}`}`;
      out.push(`      inbox ${item.id} (${item.kind}, ${time(item.createdAt)}): ${answered}`);
    }
    const extras = [
      `cost ${call.costUsd === undefined ? '-' : usd(call.costUsd)}`,
      `labels ${list(call.answer?.labels)}`,
      `attempts ${call.attempt}`,
    ];
    out.push(`      ${extras.join(' · ')}`);
  }
  out.push('', `Labels of the run: ${list(labels)}`);
  if (turn !== undefined && data.text !== undefined && data.text !== '')
    out.push(`${turn.status === 'done' ? 'Answer' : 'Last text'}: ${compact(data.text, 600)}`);
  if (data.error !== undefined) out.push(`Error: ${data.error}`);
  if (turn?.status === 'parked') {
    for (const parked of data.parked ?? [])
      out.push(`Waits on inbox item ${parked.inboxId} (${parked.tool}): wardrik approve ${parked.inboxId}`);
  }
  const parts = [
    `${totals.calls} calls (${totals.succeeded} succeeded, ${totals.failed} failed, ${totals.parked} parked${totals.running > 0 ? `, ${totals.running} running` : ''})`,
  ];
  parts.push(`tools ${usd(totals.toolCostUsd)}`);
  if (steps.length > 0) parts.push(`model ${usd(totals.modelCostUsd)}`);
  parts.push(`spent ${usd(totals.spentUsd)}`);
  out.push(`Totals: ${parts.join(' · ')}`);
  return out.join('\n');
}

function stepLine(step: StepRecord): string {
  const data = step.data as StepData | null;
  if (data?.kind === 'model') {
    const asks = data.calls.map((call) => `${call.name} ${compact(call.input, 160)}`);
    const text = data.text === '' ? '' : ` "${compact(data.text, 200)}"`;
    return `${step.index + 1}. ${time(step.createdAt)} model${text}${asks.length > 0 ? ` → ${asks.join('; ')}` : ''} · ${data.usage.inputTokens} in / ${data.usage.outputTokens} out tokens · ${usd(data.usd)}`;
  }
  if (data?.kind === 'tools') {
    const results = data.results.map(
      (result) => `${result.name}${result.error ? ' (error)' : ''}: ${compact(result.text, 160)}`,
    );
    return `${step.index + 1}. ${time(step.createdAt)} tool answers → ${results.join('; ')}`;
  }
  return `${step.index + 1}. ${time(step.createdAt)} ${compact(step.data, 200)}`;
}

function stateLine(call: CallRecord): string {
  const answer = call.answer;
  switch (call.state) {
    case 'started':
      return 'running (started, no answer yet; recovery finishes it if its node died)';
    case 'parked':
      return answer?.status === 'parked'
        ? `parked (${answer.kind}): ${answer.reason} · inbox ${answer.inboxId}`
        : 'parked';
    case 'succeeded':
      return `succeeded: ${compact(answer?.status === 'ok' ? answer.output : answer, 300)}`;
    case 'failed':
      return answer?.status === 'error' ? `failed (${answer.code}): ${compact(answer.message, 300)}` : 'failed';
    default:
      return String(call.state);
  }
}
