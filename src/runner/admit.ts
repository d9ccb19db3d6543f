import type { Decision } from '../policy/policy.js';
import type { CatalogEntry, ToolCatalog } from '../tools/catalog.js';
import { checkArguments, invalidArgumentsAnswer, notFoundAnswer, parseArguments } from '../tools/call-tool.js';
import { glob } from '../tools/glob.js';
import type { ToolAnswer } from '../tools/result.js';
import { toMicroUsd, toUsd } from '../money.js';
import type { CallDeps } from './call-deps.js';
import { readOnlyStore, storeFailure, type CallRef } from './call-failures.js';
import { budgetAnswer, type CallRequest } from './prepared-call.js';
import { then, type Maybe } from './maybe.js';

/** A new call through its checks: the tool resolved, its arguments parsed and checked, the run's labels read. */
export interface AdmittedCall {
  readonly request: CallRequest;
  readonly entry: CatalogEntry;
  readonly base: CallRef;
  /** The arguments as sent (parsed), kept in the journal and the inbox. */
  readonly sent: unknown;
  /** The checked arguments the tool receives (a DTO instance for DTO tools). */
  readonly args: unknown;
  readonly labels: readonly string[];
  /** The agent's spend when the call has a budget (what the policy sees as `budget`); else undefined. */
  readonly spentUsd?: number;
}

/** A call that ends before it runs, with the answer its journal entry gets. */
export interface EndedEarly {
  readonly ended: ToolAnswer;
  readonly base: CallRef;
  readonly sent: unknown;
  readonly decision?: Decision | undefined;
}

/**
 * Stage 1, admit: the tool is resolved among those the caller may use, the arguments parsed and
 * checked, the agent's spend and the run's labels read (from memory while this node holds the run's
 * lease: see `RunLeases.labelsOf`), without a wait when none of them needs one. There is no read of the
 * journal first: the call's first journal write fails when its id is known, and its recorded answer comes
 * back then.
 */
export function admit(deps: CallDeps, request: CallRequest): Maybe<AdmittedCall | EndedEarly> {
  const { run, call } = request;
  const entry = resolve(deps.catalog, call.name, request.tools);
  const base = { agent: request.agent, run, call: call.id, tool: entry?.ref ?? call.name };
  if (deps.store.readOnly === true) throw readOnlyStore(base);
  const parsed = parseArguments(call.arguments);
  if (entry === undefined) {
    const sent = parsed.ok ? parsed.value : call.arguments;
    return {
      base,
      sent,
      ended: notFoundAnswer(
        call.name,
        deps.catalog.select(request.tools).map((e) => e.name),
      ),
    };
  }
  if (!parsed.ok) return { base, sent: call.arguments, ended: invalidArgumentsAnswer(entry.name, parsed.issues) };
  const sent = parsed.value;
  return then(checkArguments(entry.tool, sent), (checked) => {
    if (!checked.ok) return { base, sent, ended: invalidArgumentsAnswer(entry.name, checked.issues) };
    return then(labelsUnlessSpent(deps, request, base), (read) =>
      read === 'spent'
        ? { base, sent, ended: budgetAnswer(request.budgetUsd!) }
        : { request, entry, base, sent, args: checked.value, ...read },
    );
  });
}

/** The run's labels, and for a call with a budget the agent's spend so far. */
interface LabelsAndSpend {
  readonly labels: readonly string[];
  readonly spentUsd?: number;
}

/**
 * The run's labels (and the agent's spend, for a call with a budget), or `spent` when the budget is used up
 * (a cheap early answer; `holdBudget` holds it).
 */
function labelsUnlessSpent(deps: CallDeps, request: CallRequest, base: CallRef): Maybe<LabelsAndSpend | 'spent'> {
  const { run, budgetUsd } = request;
  const failed = (error: unknown): never => {
    throw storeFailure(base, `read ${budgetUsd === undefined ? '' : "the agent's spend and "}the run's labels`, error);
  };
  try {
    const sync = deps.store.sync;
    const labels = deps.leases.labelsOf(run, () =>
      deps.journal.withHeldLabels(run, sync !== undefined ? sync.getLabels(run) : deps.store.getLabels(run)),
    );
    if (budgetUsd === undefined)
      return labels instanceof Promise ? labels.then((known) => ({ labels: known }), failed) : { labels };
    return Promise.all([deps.store.getSpend(deps.budgets.accountNow(request.agent).account), labels]).then(
      ([spend, known]) => (spend >= toMicroUsd(budgetUsd) ? 'spent' : { labels: known, spentUsd: toUsd(spend) }),
      failed,
    );
  } catch (error) {
    return failed(error);
  }
}

function resolve(
  catalog: ToolCatalog,
  name: string,
  patterns: readonly string[] | undefined,
): CatalogEntry | undefined {
  const entry = catalog.get(name);
  if (entry === undefined || patterns === undefined) return entry;
  return patterns.some((pattern) => glob(pattern)(entry.ref)) ? entry : undefined;
}
