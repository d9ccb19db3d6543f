import type { RecoveryReport } from './recovery-report.js';
import type { Clock } from '../clock.js';
import type { CallRecord, InboxRecord, Store } from '../store/store.js';
import { hasCapability } from '../store/capabilities.js';
import type { EventBus } from '../telemetry/event-bus.js';
import type { ToolAnswer } from '../tools/result.js';
import { eachBounded } from './bounded.js';

/** What taking over one call found `started` came to. */
export type Resumed = 'rerun' | 'inDoubt' | 'skipped' | 'gone';

/** What a recovery pass needs from the runner: the steps that run, park and track calls. */
export interface RecoveryHost {
  /** Whether this node offers the tool a policy names `toolset/tool`. */
  offers(ref: string): boolean;
  /** Whether this node is running the call now (a new call, a recovered or an approved one). */
  isRunning(run: string, call: string): boolean;
  /** Takes over a call found `started`, tracked as running while it does: runs it again or parks it `in_doubt`. */
  resume(record: CallRecord): Promise<Resumed>;
  /** Puts back the inbox item of a parked call that a crash lost. */
  restoreInboxItem(record: CallRecord): Promise<void>;
  /** Runs a call a person let go; answers `parked` when its run is busy on another node. */
  runApproved(item: InboxRecord, mark: () => Promise<void>): Promise<ToolAnswer>;
}

/** Runs of calls recovered at once: enough that recovery is not the sum of their durations, few enough not to flood a tool. */
export const RECOVERY_CONCURRENCY = 8;

/**
 * One recovery pass: calls found `started` whose run no live node holds are run again with the
 * same idempotency key when repeatable, and parked as `in_doubt` otherwise. Parked calls whose inbox
 * item was lost get it back, and calls a person approved on a node without their tool run here. Calls
 * this node is running, calls of runs a live node holds, and calls of tools this node does not offer
 * are left alone. The calls of different runs are taken over concurrently (a run's own in order). Never
 * start a pass while another runs: `ToolRunner.recover` serialises them.
 */
export async function recoveryPass(
  host: RecoveryHost,
  store: Store,
  events: EventBus,
  clock: Clock,
): Promise<RecoveryReport> {
  const counts = { rerun: 0, inDoubt: 0, restored: 0, skipped: 0, approved: 0 };
  const startedAt = clock.now();
  const unoffered: string[] = [];
  // A store without remembered results has none to prune.
  if (hasCapability(store, 'RememberedResults')) await store.pruneRemembered(clock.now());
  const runs = new Map<string, CallRecord[]>();
  for (const record of await store.listCalls({ state: 'started' })) {
    if (host.isRunning(record.run, record.call)) continue;
    // Another node may offer it (an MCP server not connected yet here, another service's toolset).
    if (!host.offers(record.tool)) unoffered.push(record.tool);
    else if (runs.has(record.run)) runs.get(record.run)!.push(record);
    else runs.set(record.run, [record]);
  }
  const takenOver: CallRecord[] = [];
  await eachBounded([...runs.values()], RECOVERY_CONCURRENCY, async (calls) => {
    for (const record of calls) {
      const resumed = await host.resume(record);
      if (resumed !== 'gone') counts[resumed]++;
      if (resumed === 'rerun' || resumed === 'inDoubt') takenOver.push(record);
    }
  });
  if (takenOver.length > 0) await closeLostQuestions(store, takenOver, startedAt, clock);
  for (const record of await store.listCalls({ state: 'parked' })) {
    if (record.inboxId === undefined || record.answer?.status !== 'parked' || host.isRunning(record.run, record.call))
      continue;
    const item = await store.getInboxItem(record.inboxId);
    if (item === undefined) {
      await host.restoreInboxItem(record);
      counts.restored++;
    } else if (item.status === 'approved' && host.offers(item.tool)) {
      // Busy on another node: that node, or a later pass, runs it.
      if ((await host.runApproved(item, async () => {})).status === 'parked') counts.skipped++;
      else counts.approved++;
    }
  }
  if (unoffered.length > 0) {
    const tools = [...new Set(unoffered)].join(', ');
    events.emit({
      type: 'warning',
      message: `${unoffered.length} call(s) left in flight use tools this node does not offer (${tools}); a node that offers them will finish them.`,
    });
  }
  return { ...counts, unoffered: unoffered.length };
}

/**
 * Closes the questions MCP servers asked during calls a dead node was running: the server that asked
 * went with the call, so nobody can hear an answer now. The call itself was run again or parked in doubt;
 * a question asked before the pass began is the lost one (a call run again may have asked anew).
 */
async function closeLostQuestions(
  store: Store,
  calls: readonly CallRecord[],
  before: number,
  clock: Clock,
): Promise<void> {
  const lost = new Set(calls.map((record) => `${record.run}\u0000${record.call}`));
  for (const item of await store.listInbox()) {
    if (item.kind !== 'question' || item.createdAt >= before || !lost.has(`${item.run}\u0000${item.call}`)) continue;
    const closed: InboxRecord = {
      ...item,
      status: 'answered',
      response: { action: 'cancel' },
      by: 'wardrik (the node running its call stopped; the call was taken over)',
      answeredAt: clock.now(),
    };
    await store.updateInboxItem(closed, 'pending');
  }
}
