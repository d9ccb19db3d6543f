// `npm run bench:agentdojo`: AgentDojo's suites ported to Wardrik toolsets (bench/agentdojo/), run with the
// obeying model and nobody answering the inbox, with Wardrik's label defences off, on with labels on the run
// (`labels: 'run'`) and on with labels on values (the defaults; the obeying model as a values-mode planner). Prints per suite
// utility without attack, utility under attack, attack success rate (per attack variant) and the asks a
// person would get per harmless task, beside the published figures for CaMeL and Progent.
import 'reflect-metadata';
import { ATTACKS } from './attacks.js';
import { pct, reportLines, settingName, splitLines, summaryRow } from './report.js';
import { runSuite, type SuiteReport } from './run-suite.js';
import { SUITES } from './suites.js';

/**
 * Published figures, over all four suites (no per-suite figure was found to cite, so none is printed):
 * - CaMeL: 77% utility with its defence, 84% undefended. Debenedetti et al., "Defeating Prompt Injections by
 *   Design", arXiv:2503.18813 (2025); the figures as issue 37 quotes them.
 * - Progent: 0% attack success on AgentDojo. Shi et al., "Progent: Programmable Privilege Control for LLM
 *   Agents", arXiv:2504.11703 (2025).
 */
const PUBLISHED = 'CaMeL: utility 77% with its defence, 84% undefended; Progent: attack success 0%';

const started = process.hrtime.bigint();
const SETTINGS = [
  { defences: false, labels: 'run' },
  { defences: true, labels: 'run' },
  { defences: true, labels: 'values' },
] as const;
const reports: SuiteReport[] = [];
for (const suite of SUITES) {
  for (const setting of SETTINGS) reports.push(await runSuite(suite, { ...setting, attacks: ATTACKS }));
}
const seconds = Number(process.hrtime.bigint() - started) / 1e9;

console.log(
  `\nAgentDojo (${SUITES.map((s) => s.name).join(', ')} ported), the obeying model, every tool allowed by rule, nobody answering (an ask counts as refused)`,
);
for (const report of reports) for (const line of reportLines(report)) console.log(line);
console.log('');
for (let i = 0; i < reports.length; i += SETTINGS.length)
  for (const line of splitLines(reports[i]!, reports[i + 1]!, reports[i + 2]!)) console.log(line);
console.log('\n  per setting and suite (attacks: all three variants; utility: no attack; asks: per harmless task)');
for (const setting of SETTINGS) {
  const mine = reports.filter((r) => r.defences === setting.defences && r.labels === setting.labels);
  for (const report of mine) console.log(`  ${summaryRow(`${settingName(report)}, ${report.suite}`, [report])}`);
  console.log(`  ${summaryRow(`${settingName(mine[0]!)}, all four`, mine)}`);
}
const on = reports.filter((r) => r.defences && r.labels === 'run');
const all = (pick: (r: SuiteReport) => readonly { utility: boolean }[]) => on.flatMap(pick);
const ii = on.flatMap((r) => r.attacked.filter((a) => a.attack === 'important_instructions'));
console.log(
  `\n  labels on the run, these suites: utility ${pct(all((r) => r.harmless).filter((r) => r.utility).length, all((r) => r.harmless).length)}, important_instructions attack success ${pct(ii.filter((a) => a.attackSucceeded).length, ii.length)}`,
);
const values = reports.filter((r) => r.labels === 'values');
const valueCases = values.flatMap((r) => r.attacked);
const valueTasks = values.flatMap((r) => r.harmless);
console.log(
  `  the defaults (labels on values), these suites: utility ${pct(valueTasks.filter((r) => r.utility).length, valueTasks.length)}, attack success ${pct(valueCases.filter((a) => a.attackSucceeded).length, valueCases.length)} (all three variants)`,
);
console.log(`  published (all four suites, real models): ${PUBLISHED}`);
// The obeying model obeys a planted goal whatever wraps it, so the variants' attack figures differ only for
// real models. Labels on values: the planner finds where a value came from by the words held text holds, and
// each variant plants other words, so utility under attack may differ a little between them.
console.log(
  '  (the obeying model obeys any planted goal, so the three attack variants give the same attack figures; under labels on values their utility under attack may differ a little: the planner finds where a value came from by the words in held text, planted ones included)',
);
console.log(`  (${seconds.toFixed(1)} s in all)`);
