import { ConflictError, InvalidAnswerError, StoreError, type ConflictData } from '../errors.js';
import { argumentsDigest } from '../runner/digest.js';
import type { InboxKind, InboxRecord, InboxStatus } from '../store/store.js';
import type { ToolAnsweredEvent } from '../telemetry/events.js';
import { whoMayAnswer, type Answerer } from './permissions.js';

/** How the inbox's answers are checked and counted: options, scopes, quorums, and retrying a raced write. */

export const KIND_NAMES: Readonly<Record<InboxKind, string>> = {
  approval: 'an approval',
  tool_change: 'a changed tool definition',
  park: "a tool's own park",
  in_doubt: 'a call in doubt',
  question: "an MCP server's question",
  authorize: "an MCP server's sign-in",
};

/** How a person denies: why (the model reads it), and who. */
export interface DenyOptions extends Answerer {
  readonly reason: string;
}

/** How a person approves: who, the digest of the arguments they saw, and what they changed or allowed. */
export interface ApproveOptions extends Answerer {
  /** The person, recorded as `by`; an item whose rule names `approvers` needs one. */
  readonly by?: string;
  /** The groups the person is in, as their sign-in says: checked against the rule's `approvers`. */
  readonly groups?: readonly string[];
  /** The item's `digest`, binding the approval to the arguments the person saw. Needed with `arguments`. */
  readonly digest?: string;
  /**
   * Arguments to run the call with instead of the model's, checked against the tool's schema first.
   * The item keeps both; the model is told the call ran with changed arguments.
   */
  readonly arguments?: unknown;
  /**
   * `run`: also let later calls of this tool by this agent in this run go without asking, while their
   * `allowIf` fields equal this call's and the run carries no new label. Never another run or agent.
   */
  readonly scope?: 'call' | 'run';
  /** Argument fields later calls must match for a `run` approval, such as `['orderId']`. */
  readonly allowIf?: readonly string[];
}

/** Thrown when the item changed between reading and writing it but still waits: the answer is tried again on what it is now. */
export class Raced extends Error {}
export const RACED = new Raced('The inbox item changed while it was answered; it is read again.');
/** More tries than people could race on one item; past it the store is failing its compare-and-set. */
const MAX_TRIES = 100;

/** Runs an answer again, from reading the item, each time it raced another write to the item. */
export async function untilSettled<T>(answer: () => Promise<T>): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      return await answer();
    } catch (error) {
      if (!(error instanceof Raced)) throw error;
      if (tries >= MAX_TRIES)
        throw new StoreError(
          `An inbox answer raced other writes to its item ${MAX_TRIES} times; the store's compare-and-set looks broken. Nothing was done.`,
        );
    }
  }
}

/** The digest of the arguments an approval now approves: those a person changed them to, else the call's. */
export function proposedDigest(item: InboxRecord): string {
  return item.edited?.digest ?? item.digest;
}

/** The fields a `run` approval binds later calls to; `undefined` for an approval of this call alone. */
export function scopeOf(id: string, options: ApproveOptions, approved: unknown): readonly string[] | undefined {
  if (options.scope === undefined || options.scope === 'call') {
    if (options.allowIf !== undefined)
      throw new InvalidAnswerError(
        `inbox.approve("${id}"): allowIf applies to approvals for the rest of the run; add scope: 'run'.`,
      );
    return undefined;
  }
  if (options.scope !== 'run')
    throw new InvalidAnswerError(
      `inbox.approve("${id}"): scope is 'call' (the default) or 'run'; got ${JSON.stringify(options.scope)}.`,
    );
  const allowIf = options.allowIf ?? [];
  const fields = approved !== null && typeof approved === 'object' ? (approved as Record<string, unknown>) : {};
  if (
    !Array.isArray(allowIf as unknown) ||
    !allowIf.every((field) => typeof field === 'string' && Object.hasOwn(fields, field))
  ) {
    throw new InvalidAnswerError(
      `inbox.approve("${id}"): allowIf names argument fields of the approved call, such as ${JSON.stringify(Object.keys(fields).slice(0, 2))}; got ${JSON.stringify(allowIf)}.`,
    );
  }
  return Object.freeze([...allowIf]);
}

/** The data of an `already_answered` conflict: who answered the item, how and when. */
export function answeredData(item: InboxRecord): ConflictData['already_answered'] {
  return {
    item: item.id,
    status: item.status,
    ...(item.by === undefined ? {} : { by: item.by }),
    ...(item.answeredAt === undefined ? {} : { answeredAt: item.answeredAt }),
  };
}

/**
 * The item with `by`'s approval counted toward its quorum: changed arguments start the count again with
 * theirs alone (the others approved other arguments); approving the same arguments twice is refused.
 */
export function countApproval(
  item: InboxRecord,
  by: string,
  edited: unknown,
  quorum: number,
  now: number,
): InboxRecord {
  let counted: InboxRecord;
  if (edited !== undefined) {
    const digest = argumentsDigest(edited);
    counted = { ...item, edited: { arguments: edited, digest, by }, approvals: [{ by, digest, at: now }] };
  } else {
    const digest = proposedDigest(item);
    const others = (item.approvals ?? []).filter((given) => given.digest === digest && given.by !== by);
    if (others.length !== (item.approvals ?? []).filter((given) => given.digest === digest).length)
      throw new ConflictError(
        'already_approved',
        { item: item.id, by, approvals: others.length + 1, quorum },
        `Inbox item "${item.id}": ${by} approved it already; it waits for ${morePeople(quorum - others.length - 1)} to approve. Who may answer it: ${whoMayAnswer(item)}. Nothing more was done.`,
      );
    counted = { ...item, approvals: [...others, { by, digest, at: now }] };
  }
  return counted;
}

/** `1 more person`, `2 more people`. */
export function morePeople(count: number): string {
  return `${count} more ${count === 1 ? 'person' : 'people'}`;
}

/** The `tool.answered` event of an answer; `toward` for an approval counted toward a quorum. */
export function answeredEvent(
  item: InboxRecord,
  status: Exclude<InboxStatus, 'pending'>,
  by: string | undefined,
  toward?: { readonly approvals: number; readonly quorum: number },
): Omit<ToolAnsweredEvent, 'time'> {
  return {
    type: 'tool.answered',
    agent: item.agent,
    run: item.run,
    call: item.call,
    tool: item.tool,
    inboxId: item.id,
    answer: status,
    ...(by === undefined ? {} : { by }),
    ...(item.edited === undefined ? {} : { edited: true }),
    ...(item.scope === 'run' ? { scope: 'run' as const } : {}),
    ...(toward === undefined ? {} : toward),
  };
}
