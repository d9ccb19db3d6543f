import type { Clock } from '../clock.js';
import {
  ConflictError,
  InvalidAnswerError,
  InvalidArgumentsError,
  NotFoundError,
  NotPermittedError,
  StoreError,
} from '../errors.js';
import { whoMayAnswer, whyNotTheirs } from '../inbox/permissions.js';
import type { ApproveOptions, Inbox } from '../inbox/inbox.js';
import { readRun } from '../inbox/run-view.js';
import type { InboxRecord, Store } from '../store/store.js';
import type { ToolAnswer } from '../tools/result.js';
import { WebError } from './http.js';

/**
 * An inbox item as the API lists it: the record, how long it has waited, and whether the person asking
 * may answer it (`notYours` says why not; `whoMayAnswer` who may, when a rule names them).
 */
export type WebItem = InboxRecord & {
  readonly ageMs: number;
  readonly mayAnswer: boolean;
  readonly notYours?: string;
  readonly whoMayAnswer?: string;
};

/** Who asks: their name, recorded as `by`, and their groups. */
export interface WebPerson {
  readonly by: string;
  readonly groups: readonly string[];
}

/** What an answer returns: the same shape as `wardrik approve|deny|answer --json`. */
export interface WebAnswer {
  readonly id: string;
  readonly status: 'approved' | 'denied' | 'answered';
  readonly by: string;
  readonly kind: InboxRecord['kind'];
  readonly tool: string;
  readonly agent: string;
  readonly run: string;
  readonly call: string;
  /** True when the call waits for a node that offers its tool to run it (at that node's next recovery), or for more approvals. */
  readonly pending: boolean;
  /** For an item that needs a quorum: how many people approved so far, and how many must. */
  readonly approvals?: number;
  readonly quorum?: number;
  readonly answer: ToolAnswer;
}

const MAX_ANSWERED = 200;

/**
 * The JSON API's reads and answers, over the public inbox: what the page uses, and nothing else.
 * Answers go through `Inbox` exactly as the `wardrik` command's do: an approval runs the call here when
 * this Wardrik offers the tool, else it is recorded and a node that offers it runs it.
 */
export class InboxApi {
  constructor(
    private readonly inbox: Inbox,
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  /** Pending items, oldest first; or answered ones, most recently answered first (at most `limit`, 200). */
  async items(
    which: 'pending' | 'answered',
    limit: number,
    person: WebPerson,
  ): Promise<{ items: WebItem[]; now: number }> {
    const now = this.clock.now();
    const found = await guard(() => (which === 'pending' ? this.inbox.list() : this.store.listInbox({ all: true })));
    const chosen =
      which === 'pending'
        ? found
        : found
            .filter((item) => item.status !== 'pending')
            .sort((a, b) => (b.answeredAt ?? 0) - (a.answeredAt ?? 0))
            .slice(0, Math.min(Math.max(1, limit), MAX_ANSWERED));
    return { items: chosen.map((item) => webItem(item, now, person)), now };
  }

  async item(id: string, person: WebPerson): Promise<WebItem> {
    const item = await guard(() => this.inbox.get(id));
    if (item === undefined) throw notFound(id);
    return webItem(item, this.clock.now(), person);
  }

  /** A run's timeline, as `wardrik show --json` gives it. */
  async run(run: string): Promise<object> {
    const found = await guard(() => readRun(this.store, run));
    if (found === undefined)
      throw new WebError(
        404,
        'not_found',
        `No run "${run}": it has no turn and no calls in this store. Check the id; the items' "run" fields name theirs.`,
      );
    return found;
  }

  async approve(id: string, person: WebPerson, body: Record<string, unknown>): Promise<WebAnswer> {
    const digest = body.digest;
    if (typeof digest !== 'string' || !/^[0-9a-f]{64}$/.test(digest)) {
      throw new WebError(
        400,
        'usage',
        `Approve with the digest of the arguments you reviewed: {"digest":"<64 hex digits>"}, the item's "digest" field (GET api/items/${id}).`,
      );
    }
    const item = await this.pending(id, 'approve');
    if (item.kind !== 'approval' && item.kind !== 'tool_change') {
      throw new WebError(
        400,
        'usage',
        `Inbox item "${id}" is ${item.kind === 'park' ? "a tool's own park" : 'a call left in doubt by a crash'}, not an approval, so it cannot be approved. ` +
          (item.kind === 'park'
            ? 'Answer it with a value ({"value":…} to …/answer)'
            : 'Say whether it happened ({"value":{"happened":false}} to …/answer runs it now, once)') +
          ', or deny it with a reason.',
      );
    }
    return this.report(item, 'approved', person.by, () =>
      this.inbox.approve(id, { ...person, digest, ...approvalChanges(id, body) }),
    );
  }

  async deny(id: string, person: WebPerson, body: Record<string, unknown>): Promise<WebAnswer> {
    const reason = body.reason;
    if (typeof reason !== 'string' || reason.trim() === '')
      throw new WebError(
        400,
        'usage',
        'Deny needs a reason: {"reason":"…"}. The model reads it to decide what to do next.',
      );
    if (reason.length > 4_000)
      throw new WebError(
        400,
        'usage',
        `The reason is ${reason.length} characters; keep it under 4 000, the model reads all of it.`,
      );
    const item = await this.pending(id, 'deny');
    return this.report(item, 'denied', person.by, () => this.inbox.deny(id, { ...person, reason }));
  }

  async answer(id: string, person: WebPerson, body: Record<string, unknown>): Promise<WebAnswer> {
    if (!('value' in body))
      throw new WebError(
        400,
        'usage',
        'Answer with {"value": …}: for a tool\'s own park, the value the call returns; for a call in doubt, {"happened":true,"result":…} or {"happened":false}.',
      );
    const value = body.value;
    const item = await this.pending(id, 'answer');
    if (item.kind === 'approval')
      throw new WebError(
        400,
        'usage',
        `Inbox item "${id}" asks for approval, not for a value: approve it with its digest, or deny it with a reason.`,
      );
    const happened = (value as { happened?: unknown } | null)?.happened;
    if (item.kind === 'in_doubt' && typeof happened !== 'boolean') {
      throw new WebError(
        400,
        'usage',
        `Inbox item "${id}" is a call a crash left in doubt; say whether it happened: {"value":{"happened":true,"result":…}} records the result without running it, {"value":{"happened":false}} runs it now, once.`,
      );
    }
    return this.report(item, item.kind === 'in_doubt' && happened === false ? 'approved' : 'answered', person.by, () =>
      this.inbox.answer(id, value, person),
    );
  }

  /** The item if it is there and pending; 404 or 409 (saying who answered it, and when) if not. */
  private async pending(id: string, verb: string): Promise<InboxRecord> {
    const item = await guard(() => this.inbox.get(id));
    if (item === undefined) throw notFound(id, verb);
    if (item.status !== 'pending') throw answeredAlready(item);
    return item;
  }

  private async report(
    item: InboxRecord,
    status: WebAnswer['status'],
    by: string,
    act: () => Promise<ToolAnswer>,
  ): Promise<WebAnswer> {
    let answer: ToolAnswer;
    try {
      answer = await guard(act);
    } catch (error) {
      // Someone answered between our read and our write: say who, as a first read would have.
      if (error instanceof WebError && error.status === 409) {
        const now = await this.inbox.get(item.id).catch(() => undefined);
        if (now !== undefined && now.status !== 'pending') throw answeredAlready(now);
      }
      throw error;
    }
    const { id, kind, tool, agent, run, call } = item;
    const quorum = item.answerers?.quorum;
    const approvals =
      quorum === undefined ? undefined : (await this.inbox.get(id).catch(() => undefined))?.approvals?.length;
    return {
      id,
      status,
      by,
      kind,
      tool,
      agent,
      run,
      call,
      pending: answer.status === 'parked',
      answer,
      ...(quorum === undefined || approvals === undefined ? {} : { approvals, quorum }),
    };
  }
}

/** The conflict an answered item gets: by whom, when, and that nothing was done. */
export class AnsweredError extends WebError {
  constructor(readonly item: InboxRecord) {
    const when = item.answeredAt === undefined ? '' : ` at ${new Date(item.answeredAt).toISOString()}`;
    super(
      409,
      'conflict',
      `Inbox item "${item.id}" was already ${item.status}${item.by === undefined ? '' : ` by ${item.by}`}${when}; nothing was done. Each item is answered once.`,
    );
  }
}

function answeredAlready(item: InboxRecord): AnsweredError {
  return new AnsweredError(item);
}

function notFound(id: string, verb?: string): WebError {
  return new WebError(
    404,
    'not_found',
    `No inbox item "${id}"${verb === undefined ? '' : ` to ${verb}`} in this store; check the id (GET api/items lists the pending ones).`,
  );
}

/** What an approval's body may add: `arguments` to run instead, `scope: "run"` with `allowIf` fields. */
function approvalChanges(
  id: string,
  body: Record<string, unknown>,
): Pick<ApproveOptions, 'arguments' | 'scope' | 'allowIf'> {
  const { arguments: edited, scope, allowIf } = body;
  if (edited !== undefined && (edited === null || typeof edited !== 'object' || Array.isArray(edited))) {
    throw new WebError(
      400,
      'usage',
      `"arguments" must be a JSON object of the tool's named arguments, the item's "arguments" changed (GET api/items/${id}).`,
    );
  }
  if (scope !== undefined && scope !== 'call' && scope !== 'run')
    throw new WebError(
      400,
      'usage',
      '"scope" is "call" (the default) or "run": later calls of this tool in the same run go too.',
    );
  if (
    allowIf !== undefined &&
    (!Array.isArray(allowIf) || !allowIf.every((field) => typeof field === 'string') || allowIf.length > 100)
  ) {
    throw new WebError(
      400,
      'usage',
      '"allowIf" is a list of argument field names, such as ["orderId"], with "scope":"run".',
    );
  }
  return {
    ...(edited === undefined ? {} : { arguments: edited }),
    ...(scope === undefined ? {} : { scope }),
    ...(allowIf === undefined ? {} : { allowIf: allowIf as string[] }),
  };
}

/** Runs `work`, turning the inbox's and store's errors into the API's. */
async function guard<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof WebError) throw error;
    if (error instanceof NotFoundError) throw new WebError(404, 'not_found', error.message);
    if (error instanceof InvalidArgumentsError) throw new WebError(400, 'invalid_arguments', error.message);
    if (error instanceof InvalidAnswerError) throw new WebError(400, 'usage', error.message);
    if (error instanceof ConflictError) throw new WebError(409, 'conflict', error.message);
    if (error instanceof NotPermittedError) throw new WebError(403, 'not_permitted', error.message);
    if (error instanceof StoreError)
      throw new WebError(503, 'store', `The store failed: ${error.message} Try again in a moment.`);
    throw error;
  }
}

/** The item as `person` sees it: how long it waited, and whether it is theirs to answer (and if not, why). */
function webItem(item: InboxRecord, now: number, person: WebPerson): WebItem {
  const why = item.status === 'pending' ? whyNotTheirs(item, person) : undefined;
  return {
    ...item,
    ageMs: Math.max(0, now - item.createdAt),
    mayAnswer: item.status === 'pending' && why === undefined,
    ...(why === undefined ? {} : { notYours: why }),
    ...(item.answerers === undefined ? {} : { whoMayAnswer: whoMayAnswer(item) }),
  };
}
