import type { AuditTrail } from '../audit/audit-trail.js';
import type { Policy } from '../policy/policy.js';
import type { Store } from '../store/store.js';
import type { EventBus } from '../telemetry/event-bus.js';
import type { CatalogEntry, ToolCatalog } from '../tools/catalog.js';
import { isRepeatable } from '../tools/tool.js';
import type { BudgetHolds } from './budget-holds.js';
import type { CallLimits } from './call-limits.js';
import type { AttemptSettings, CallAttempts } from './call-attempts.js';
import type { CallJournal } from './call-journal.js';
import type { CallOutcomes } from './call-outcomes.js';
import type { ParkedCalls } from './parked-calls.js';
import type { RememberedKeys } from './remembered-keys.js';
import type { RunGrants } from './run-grants.js';
import type { RunLeases } from './run-leases.js';

/**
 * What the stages of a call (admit → decide → hold budget → attempt → record) work with, built once
 * by the runner. Each stage is a plain function over it, so a reader follows a call in order.
 */
export interface CallDeps {
  readonly catalog: ToolCatalog;
  readonly store: Store;
  readonly events: EventBus;
  readonly policy: Policy;
  readonly settings: AttemptSettings;
  readonly journal: CallJournal;
  readonly outcomes: CallOutcomes;
  readonly leases: RunLeases;
  readonly budgets: BudgetHolds;
  /** `maxCalls`: calls per tool per run. */
  readonly limits: CallLimits;
  readonly grants: RunGrants;
  readonly remembered: RememberedKeys;
  readonly attempts: CallAttempts;
  readonly parked: ParkedCalls;
  /** Where each verdict is recorded (`audit` in `Wardrik.create`); none unless set, after construction. */
  audit?: AuditTrail;
}

/** The longest a call of this tool can take, every attempt and wait included: how long its holds and claims live. */
export function holdMs(deps: CallDeps, entry: CatalogEntry): number {
  const { timeoutMs, attempts, maxDelayMs } = deps.settings;
  const tries = isRepeatable(entry.tool) ? attempts : 1;
  return (entry.tool.annotations.timeout ?? timeoutMs) * tries + maxDelayMs * (tries - 1) + deps.leases.ttlMs;
}
