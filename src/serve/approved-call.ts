import type { CallRecord } from '../store/store.js';
import type { SessionDeps } from './session.js';

/**
 * A served call's journal record, once this node's recovery had the chance to run it if a person approved
 * it and it has not run yet (the approval may have come from `wardrik approve` elsewhere). Recovery takes
 * the run's lease, so however many clients retry or poll, on however many nodes, the call runs once; a
 * pass that finds the run busy on another node leaves it there, and a later read finds its result.
 */
export async function callAfterApproval(
  deps: Pick<SessionDeps, 'store' | 'runner'>,
  run: string,
  call: string,
): Promise<CallRecord | undefined> {
  const { store, runner } = deps;
  const record = await store.getCall(run, call);
  if (record?.state !== 'parked' || record.inboxId === undefined) return record;
  const item = await store.getInboxItem(record.inboxId);
  if (item?.status !== 'approved') return record;
  await runner.recover().catch(() => undefined);
  return store.getCall(run, call);
}
