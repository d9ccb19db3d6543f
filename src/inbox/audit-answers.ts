import type { InboxRecord, InboxStatus } from '../store/store.js';

/** An entry for the audit trail: its kind and data. */
export interface AuditNote {
  readonly kind: 'answer' | 'expired' | 'escalated';
  readonly data: Record<string, unknown>;
}

/** Who answered an item whose time ran out, as the inbox records it. */
export const EXPIRED_BY = 'wardrik (policy.approvalTtlMs)';

function itemData(item: InboxRecord): Record<string, unknown> {
  const { id, kind, agent, run, call, tool, digest } = item;
  return { item: id, itemKind: kind, agent, run, call, tool, digest };
}

/**
 * A person's answer to an item, or its expiry: who, the digest of the arguments they saw, the digest of
 * those they changed them to, the scope, and, toward a quorum, how many approvals it has.
 */
export function answerNote(
  item: InboxRecord,
  status: Exclude<InboxStatus, 'pending'>,
  by: string | undefined,
  toward?: { readonly approvals: number; readonly quorum: number },
): AuditNote {
  if (by === EXPIRED_BY) return { kind: 'expired', data: { ...itemData(item), status } };
  const data = {
    ...itemData(item),
    status,
    by: by ?? null,
    ...(item.edited === undefined ? {} : { editedDigest: item.edited.digest }),
    ...(item.scope === 'run' ? { scope: 'run', allowIf: item.allowIf ?? [] } : {}),
    ...(toward ?? {}),
  };
  return { kind: 'answer', data };
}

/** An item escalated after waiting `waitedMs`. */
export function escalationNote(item: InboxRecord, waitedMs: number): AuditNote {
  return { kind: 'escalated', data: { ...itemData(item), waitedMs } };
}
