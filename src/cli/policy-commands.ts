import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { WardrikOptions } from '../di/wardrik.js';
import { ConfigurationError } from '../errors.js';
import { cedarSchema } from '../policy/cedar-schema.js';
import { Policy, type PolicyOptions } from '../policy/policy.js';
import { ToolCatalog, type CatalogEntry } from '../tools/catalog.js';
import { describeToolset } from '../tools/toolset.js';
import type { CommandContext } from './context.js';
import { CliError, ExitCode } from './errors.js';
import { loadToolsets } from './tools-command.js';

/** The toolsets a module exports, registered as `Wardrik.create` would (without building any class). */
async function moduleTools(module: string, toolset: string) {
  const loaded = await loadToolsets(module, toolset);
  const catalog = new ToolCatalog();
  for (const { toolsetClass } of loaded.classes) {
    const described = describeToolset(toolsetClass);
    catalog.set(described.name, described.tools);
  }
  if (loaded.values.length > 0)
    catalog.set(
      toolset,
      loaded.values.map((value) => value.tool),
    );
  return { loaded, entries: catalog.entries() };
}

/** `wardrik policy schema MODULE [--toolset NAME]`: the Cedar schema (JSON format) policies are checked against. */
export async function policySchema(
  ctx: CommandContext,
  module: string,
  options: { readonly toolset: string },
): Promise<void> {
  const { entries } = await moduleTools(module, options.toolset);
  const { json } = cedarSchema(entries);
  ctx.print(json, () => JSON.stringify(json, null, 2));
}

/** One example call of a `wardrik policy test` table, and the decision it expects. */
interface TestRow {
  readonly tool: string;
  readonly arguments?: unknown;
  readonly labels?: readonly string[];
  /** The agent making the call (`principal`); `test` unless given. */
  readonly agent?: string;
  readonly principal?: string;
  readonly onBehalfOf?: string;
  readonly budget?: { readonly spentUsd: number; readonly limitUsd: number };
  readonly expected: 'allow' | 'ask' | 'deny';
}

interface RowResult {
  readonly row: number;
  readonly tool: string;
  readonly expected: string;
  readonly decision: string;
  readonly decidedBy: string;
  readonly pass: boolean;
}

const MAX_ROWS = 10_000;

/**
 * `wardrik policy test TABLE --module MODULE [--policies FILE]`: decides each example call of the table
 * with the module's policy (its `wardrikOptions.policy`, with `--policies` as its Cedar policies) and
 * prints pass or fail per row; exits 7 when any row's decision is not the one it expects.
 */
export async function policyTest(
  ctx: CommandContext,
  table: string,
  options: { readonly module: string; readonly policies?: string; readonly toolset: string },
): Promise<void> {
  const rows = readTable(table);
  const { loaded, entries } = await moduleTools(options.module, options.toolset);
  const given = (loaded.wardrikOptions as WardrikOptions | undefined)?.policy ?? {};
  const policyOptions: PolicyOptions = {
    ...given,
    ...(options.policies === undefined ? {} : { cedar: { policies: resolve(options.policies) } }),
  };
  if (policyOptions.rules === undefined && policyOptions.cedar === undefined && policyOptions.decide === undefined)
    throw new CliError(
      ExitCode.usage,
      `Nothing to test: ${loaded.path} exports no wardrikOptions.policy, and no --policies FILE was given.`,
    );
  let policy: Policy;
  try {
    policy = new Policy(policyOptions);
    policy.useTools(entries);
  } catch (error) {
    if (error instanceof ConfigurationError) throw new CliError(ExitCode.usage, error.message, { cause: error });
    throw error;
  }
  const byRef = new Map<string, CatalogEntry>(entries.map((entry) => [entry.ref, entry]));
  const results: RowResult[] = [];
  for (const [index, row] of rows.entries()) results.push(await decideRow(policy, byRef, row, index + 1));
  const failed = results.filter((result) => !result.pass).length;
  ctx.print({ rows: results, passed: results.length - failed, failed }, () =>
    [
      ...results.map(
        (r) =>
          `${r.pass ? 'pass' : 'FAIL'}  row ${r.row}  ${r.tool}: ${r.decision}${r.pass ? '' : ` (expected ${r.expected})`}  by ${r.decidedBy}`,
      ),
      `${results.length - failed} passed, ${failed} failed`,
    ].join('\n'),
  );
  if (failed > 0)
    throw new CliError(
      ExitCode.mismatch,
      `${failed} of ${results.length} rows of ${table} did not decide as expected.`,
    );
}

async function decideRow(
  policy: Policy,
  byRef: ReadonlyMap<string, CatalogEntry>,
  row: TestRow,
  index: number,
): Promise<RowResult> {
  const entry = byRef.get(row.tool);
  const result = (decision: string, decidedBy: string): RowResult => ({
    row: index,
    tool: row.tool,
    expected: row.expected,
    decision,
    decidedBy,
    pass: decision === row.expected,
  });
  if (entry === undefined) return result('none', `no tool ${row.tool} in the module`);
  const args = row.arguments ?? {};
  const annotations = entry.tool.annotations;
  let resources: readonly string[] = [];
  try {
    resources = annotations.resources?.(args as never) ?? [];
  } catch (error) {
    return result('none', `@Resources threw: ${(error as Error).message}`);
  }
  const decision = await policy.decide({
    agent: row.agent ?? row.principal ?? 'test',
    run: `policy-test-${index}`,
    tool: entry.ref,
    annotations,
    arguments: args,
    labels: row.labels ?? [],
    resources,
    ...(row.onBehalfOf === undefined ? {} : { onBehalfOf: row.onBehalfOf }),
    ...(row.budget === undefined ? {} : { budget: row.budget }),
  });
  return result(decision.action, decision.rule);
}

/** The table: a JSON array of rows, or one JSON row a line. */
function readTable(file: string): TestRow[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new CliError(ExitCode.notFound, `Cannot read the table ${file}: ${(error as Error).message}.`);
  }
  let rows: unknown[];
  try {
    rows = text.trimStart().startsWith('[')
      ? (JSON.parse(text) as unknown[])
      : text
          .split('\n')
          .filter((line) => line.trim() !== '' && !line.trimStart().startsWith('//'))
          .map((line) => JSON.parse(line) as unknown);
  } catch (error) {
    throw new CliError(
      ExitCode.usage,
      `${file} is not a JSON array of rows or JSON lines: ${(error as Error).message}.`,
    );
  }
  if (rows.length > MAX_ROWS)
    throw new CliError(ExitCode.usage, `${file} has ${rows.length} rows; at most ${MAX_ROWS}.`);
  rows.forEach((row, i) => {
    const r = row as Partial<TestRow> | null;
    if (
      r === null ||
      typeof r !== 'object' ||
      typeof r.tool !== 'string' ||
      !['allow', 'ask', 'deny'].includes(r.expected as string)
    )
      throw new CliError(
        ExitCode.usage,
        `Row ${i + 1} of ${file} needs "tool" ("toolset/tool") and "expected" ("allow", "ask" or "deny"), such as {"tool":"orders/refund","arguments":{"amount":50},"agent":"support","expected":"allow"}.`,
      );
  });
  return rows as TestRow[];
}
