import { InvalidArgumentError } from 'commander';
import { DEFAULT_FINISHED_AFTER_MS, pruneFinished } from '../store/retention.js';
import type { PruneReport } from '../store/store.js';
import type { CommandContext } from './context.js';

const UNITS: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

/** `--older-than`: a whole number and a unit, such as `7d`, `12h`, `90m`. */
export function age(value: string): number {
  const match = /^(\d+)(ms|s|m|h|d|w)$/.exec(value.trim());
  if (match === null)
    throw new InvalidArgumentError('an age such as 7d, 12h or 90m is needed (units: ms, s, m, h, d, w).');
  return Number(match[1]) * UNITS[match[2]!]!;
}

/** `wardrik prune [--older-than 7d] [--dry-run]`: deletes finished runs as retention does, and says what went. */
export async function prune(
  ctx: CommandContext,
  options: { readonly olderThan?: number; readonly dryRun?: boolean },
): Promise<void> {
  const olderThanMs = options.olderThan ?? DEFAULT_FINISHED_AFTER_MS;
  const before = ctx.io.now() - olderThanMs;
  const dryRun = options.dryRun === true;
  const report = await ctx.withStore((store) => pruneFinished(store, before, dryRun));
  ctx.print({ store: ctx.storeName, dryRun, before, removed: report }, () => {
    const what = describe(report);
    const when = `finished before ${new Date(before).toISOString()}`;
    if (dryRun)
      return what === ''
        ? `Nothing to delete in store ${ctx.storeName}: no runs ${when}.`
        : `Would delete, from store ${ctx.storeName}: ${what} (runs ${when}). Nothing was deleted.`;
    return what === ''
      ? `Nothing deleted from store ${ctx.storeName}: no runs ${when}.`
      : `Deleted from store ${ctx.storeName}: ${what} (runs ${when}). Parked and in-doubt runs were kept.`;
  });
}

function describe(report: PruneReport): string {
  const parts: [number, string][] = [
    [report.runs, 'run'],
    [report.turns, 'turn'],
    [report.steps, 'step'],
    [report.calls, 'call'],
    [report.inbox, 'answered inbox item'],
    [report.labels, 'label'],
    [report.leases, 'lease'],
    [report.holds, 'lapsed budget hold'],
  ];
  return parts
    .filter(([count]) => count > 0)
    .map(([count, noun]) => `${count} ${noun}${count === 1 ? '' : 's'}`)
    .join(', ');
}
