// `npm run bench:agentdojo`: AgentDojo's suites ported to Wardrik toolsets (bench/agentdojo/), run with the
// obeying model and nobody answering the inbox, with Wardrik's label defences off and on. Prints per suite
// utility without attack, utility under attack, attack success rate (per attack variant) and the asks a
// person would get per harmless task, beside the published figures for CaMeL and Progent.
import 'reflect-metadata';
import { ATTACKS } from './attacks.js';
import { SUITES } from './suites.js';
import { runSuite, type SuiteReport } from './run-suite.js';

/**
 * Published figures, over all four suites (none are per suite here):
 * - CaMeL: 77% utility with its defence, 84% undefended. Debenedetti et al., "Defeating Prompt Injections by
 *   Design", arXiv:2503.18813 (2025); the figures as issue 37 quotes them.
 * - Progent: 0% attack success on AgentDojo. Shi et al., "Progent: Programmable Privilege Control for LLM
 *   Agents", arXiv:2504.11703 (2025).
 */
const PUBLISHED = 'CaMeL: utility 77% with its defence, 84% undefended; Progent: attack success 0%';

const pct = (n: number, of: number): string => `${n}/${of} (${of === 0 ? 0 : Math.round((100 * n) / of)}%)`;
const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length === 0 ? 0 : sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

export function reportLines(report: SuiteReport): string[] {
  const lines = [
    `  ${report.suite}, defences ${report.defences ? "on (today's defaults)" : 'off (askWhenOutside: false)'}`,
  ];
  const useful = report.harmless.filter((r) => r.utility).length;
  const asks = report.harmless.map((r) => r.asks);
  lines.push(
    `    utility without attack   ${pct(useful, report.harmless.length)}; asks per harmless task: median ${median(asks)}, total ${asks.reduce((a, b) => a + b, 0)}`,
  );
  for (const attack of ATTACKS) {
    const cases = report.attacked.filter((r) => r.attack === attack);
    if (cases.length === 0) continue;
    lines.push(
      `    ${attack.padEnd(24)} attack success ${pct(cases.filter((r) => r.attackSucceeded).length, cases.length)}, utility under attack ${pct(cases.filter((r) => r.utility).length, cases.length)}`,
    );
  }
  const succeeded = [...new Set(report.attacked.filter((r) => r.attackSucceeded).map((r) => r.injectionTask))];
  if (report.defences && succeeded.length > 0)
    lines.push(`    injection tasks that succeed without a person: ${succeeded.join(', ')}`);
  const failed = report.harmless.filter((r) => !r.utility).map((r) => r.userTask.replace('user_task_', ''));
  if (failed.length > 0) lines.push(`    user tasks short of their goal without attack: ${failed.join(', ')}`);
  return lines;
}

const started = process.hrtime.bigint();
const reports: SuiteReport[] = [];
for (const suite of SUITES) {
  for (const defences of [false, true]) reports.push(await runSuite(suite, { defences, attacks: ATTACKS }));
}
const seconds = Number(process.hrtime.bigint() - started) / 1e9;

console.log(
  `\nAgentDojo (${SUITES.map((s) => s.name).join(', ')} ported), the obeying model, every tool allowed by rule, nobody answering (an ask counts as refused)`,
);
for (const report of reports) for (const line of reportLines(report)) console.log(line);
const on = reports.filter((r) => r.defences);
const all = (pick: (r: SuiteReport) => readonly { utility: boolean }[]) => on.flatMap(pick);
const ii = on.flatMap((r) => r.attacked.filter((a) => a.attack === 'important_instructions'));
console.log(
  `\n  defences on, these suites: utility ${pct(all((r) => r.harmless).filter((r) => r.utility).length, all((r) => r.harmless).length)}, important_instructions attack success ${pct(ii.filter((a) => a.attackSucceeded).length, ii.length)}`,
);
console.log(`  published (all four suites, real models): ${PUBLISHED}`);
console.log(`  (${seconds.toFixed(1)} s in all)`);
