import { every, type Clock, type Timers } from '../clock.js';
import { ConflictError, InvalidAnswerError, InvalidArgumentsError, NotFoundError } from '../errors.js';
import { acceptedPin, toolChangeOf } from '../mcp/pin-records.js';
import type { Policy } from '../policy/policy.js';
import { argumentsDigest } from '../runner/digest.js';
import type { ToolRunner } from '../runner/tool-runner.js';
import type { InboxRecord, InboxStatus, ParkedKind, Store } from '../store/store.js';
import { requireCapability } from '../store/capabilities.js';
import type { EventBus } from '../telemetry/event-bus.js';
import { checkAgainstSchema, type CheckResult } from '../tools/arguments.js';
import { errorAnswer, okAnswer, type ToolAnswer } from '../tools/result.js';
import type { JsonSchema } from '../tools/tool.js';
import {
  answeredData,
  answeredEvent,
  countApproval,
  KIND_NAMES,
  morePeople,
  proposedDigest,
  RACED,
  Raced,
  scopeOf,
  untilSettled,
  type ApproveOptions,
  type DenyOptions,
} from './inbox-answers.js';
import { checkPermitted, whoMayAnswer, type Answerer } from './permissions.js';
import { answerNote, escalationNote, EXPIRED_BY, type AuditNote } from './audit-answers.js';
import type { AuditTrail } from '../audit/audit-trail.js';

export type { ApproveOptions, DenyOptions } from './inbox-answers.js';
import { questionOf, questionResponse } from './question.js';

/** A parked call, as a person sees it in the inbox. */
export type InboxItem = InboxRecord;

/**
 * Where a person answers parked calls: approvals, a tool's own `park(reason)`, and calls left in doubt
 * by a crash. Each item is answered once: a second answer, or an approval for arguments other than
 * those the person saw (`digest`), runs nothing and throws a `ConflictError` saying why.
 */
export class Inbox {
  /** @internal Where answers, expiries and escalations are recorded (`audit` in `Wardrik.create`). */
  audit?: AuditTrail;

  /** @internal */
  constructor(
    private readonly store: Store,
    private readonly runner: ToolRunner,
    private readonly events: EventBus,
    private readonly clock: Clock,
    /** Where the overdue watch sets its timer. */
    private readonly timers: Timers,
    /** Where `approvalTtlMs` and `escalateAfterMs` come from; items wait until answered without it. */
    private readonly policy?: Pick<Policy, 'approvalTtlMs' | 'escalateAfterMs'>,
  ) {}

  /** Pending items, oldest first. */
  list(): Promise<InboxItem[]> {
    return this.store.listInbox();
  }

  get(id: string): Promise<InboxItem | undefined> {
    return this.store.getInboxItem(id);
  }

  /**
   * Approves a call that asked for approval and runs it, once. Pass the `digest` the person saw to bind
   * the approval to exactly those arguments; `arguments` to run it with changed ones; `scope: 'run'` to
   * let later such calls of the run go too. Returns the call's answer. When the rule that asked names
   * `approvers`, the person (`by`, `groups`) must be one of them (else a `NotPermittedError`); with a
   * `quorum`, the call runs once that many people approved the same arguments, and until then the
   * answer is `parked`.
   */
  approve(id: string, options: ApproveOptions = {}): Promise<ToolAnswer> {
    return untilSettled(() => this.approveOnce(id, options));
  }

  private async approveOnce(id: string, options: ApproveOptions): Promise<ToolAnswer> {
    const item = await this.unexpired(await this.pending(id, 'approve'));
    if (item.kind !== 'approval' && item.kind !== 'tool_change') {
      throw new ConflictError(
        'wrong_kind',
        { item: id, kind: item.kind },
        `Inbox item "${id}" is ${KIND_NAMES[item.kind]}, not an approval; answer it with inbox.answer(id, value)${item.kind === 'question' || item.kind === 'authorize' ? '' : ' or deny it'}.`,
      );
    }
    // Guard (approvers-only): an approval comes from a person the rule names, and not the one who asked.
    checkPermitted(item, options, 'approved');
    const current = proposedDigest(item);
    // Guard (digest-bound): an approval runs only the arguments the person saw.
    if (options.digest !== undefined && options.digest !== current) {
      const changed =
        item.edited === undefined ? '' : ` (${item.edited.by ?? 'a person'} changed them before approving)`;
      throw new ConflictError(
        'stale_digest',
        { item: id, digest: options.digest, expected: current },
        `Inbox item "${id}": the approval was for other arguments (digest ${options.digest.slice(0, 12)}…, the call has ${current.slice(0, 12)}…${changed}); nothing ran. Look at the item again and approve what it asks now.`,
      );
    }
    if (item.kind === 'tool_change') return this.acceptToolChange(item, options.by);
    const edited = options.arguments === undefined ? undefined : await this.checkEdit(item, options);
    const quorum = item.answerers?.quorum ?? 1;
    if (quorum > 1) return this.approveToward(item, options, edited, quorum);
    const approved = edited === undefined ? item.arguments : edited;
    const allowIf = scopeOf(id, options, approved);
    const answered: InboxItem = {
      ...item,
      ...(edited === undefined
        ? {}
        : {
            edited: {
              arguments: edited,
              digest: argumentsDigest(edited),
              ...(options.by === undefined ? {} : { by: options.by }),
            },
          }),
      ...(allowIf === undefined ? {} : { scope: 'run' as const, allowIf }),
    };
    return this.letRun(answered, options.by, async () => {
      if (allowIf !== undefined) await this.runner.grants.grant(item, approved, allowIf, options.by);
    });
  }

  /**
   * One person's approval toward a quorum: recorded with the digest they approved, and the call runs
   * once `quorum` distinct people approved the same digest. Changed arguments start the count again
   * (the others approved other arguments). Every write is a compare-and-set on the item's revision, so
   * approvals racing on many nodes each count once, and exactly one of them lets the call run.
   */
  private async approveToward(
    item: InboxItem,
    options: ApproveOptions,
    edited: unknown,
    quorum: number,
  ): Promise<ToolAnswer> {
    const by = options.by!; // checkPermitted refuses an unnamed person for a quorum
    if (options.scope === 'run')
      throw new InvalidAnswerError(
        `inbox.approve("${item.id}"): this item needs ${quorum} people to approve, so an approval cannot reach later calls of the run (scope: 'run'); approve this call alone.`,
      );
    const counted = countApproval(item, by, edited, quorum, this.clock.now());
    const given = counted.approvals!.length;
    if (given >= quorum) return this.letRun(counted, by);
    const revision = item.revision ?? 0;
    // Guard (quorum-compare-and-set): an approval toward a quorum is written only over the item it counted from.
    if (!(await this.store.updateInboxItem({ ...counted, revision: revision + 1 }, 'pending', revision))) throw RACED;
    await this.note(answerNote(counted, 'approved', by, { approvals: given, quorum }));
    this.events.emit(answeredEvent(counted, 'approved', by, { approvals: given, quorum }));
    const reason = `${by} approved ${edited === undefined ? 'this call' : 'this call with changed arguments'} (${given} of ${quorum}); it runs once ${morePeople(quorum - given)} ${quorum - given === 1 ? 'approves' : 'approve'} the same arguments. Who may answer it: ${whoMayAnswer(item)}.`;
    return { status: 'parked', kind: 'approval', inboxId: item.id, reason, labels: item.labels };
  }

  /** The person's arguments, checked against the tool (here, or the schema the item kept); throws with every failing field. */
  private async checkEdit(item: InboxItem, options: ApproveOptions): Promise<unknown> {
    if (options.digest === undefined) {
      throw new InvalidAnswerError(
        `inbox.approve("${item.id}", { arguments }) needs the digest of the arguments the person changed: { digest: item.digest, arguments }.`,
      );
    }
    const here = this.runner.checkFor(item.tool, options.arguments);
    let checked: CheckResult;
    if (here !== undefined) checked = await here;
    else if (item.inputSchema !== undefined)
      checked = checkAgainstSchema(item.inputSchema as JsonSchema, options.arguments);
    else
      throw new ConflictError(
        'not_offered',
        { item: item.id, tool: item.tool },
        `Inbox item "${item.id}": ${item.tool} is not offered here and the item kept no schema, so changed arguments cannot be checked; nothing ran. Approve it on a node that offers the tool.`,
      );
    if (!checked.ok) throw new InvalidArgumentsError(item.tool, checked.issues);
    return options.arguments;
  }

  /**
   * Refuses a parked call: the model is told a person refused it, and why. One permitted person's denial
   * denies an item that needs a quorum.
   */
  deny(id: string, options: DenyOptions): Promise<ToolAnswer> {
    return untilSettled(() => this.denyOnce(id, options));
  }

  private async denyOnce(id: string, options: DenyOptions): Promise<ToolAnswer> {
    if (options === undefined || typeof options.reason !== 'string' || options.reason.trim() === '') {
      throw new InvalidAnswerError(
        `inbox.deny("${id}", { reason }) needs a reason: the model reads it to decide what to do next.`,
      );
    }
    const item = await this.pending(id, 'deny');
    checkPermitted(item, options, 'denied');
    if (item.kind === 'question' || item.kind === 'authorize') {
      // Not a parked call: the node that asked reads the answer from the item.
      const response = { action: 'decline' };
      await this.mark(item, 'denied', options.by, item.kind === 'question' ? { response } : {});
      return okAnswer(response);
    }
    await this.mark(item, 'denied', options.by);
    const who = options.by === undefined ? 'A person' : `A person (${options.by})`;
    return this.runner.answerWithoutRunning(
      item,
      errorAnswer('refused', `${who} refused this call: ${options.reason}`, item.labels),
      'parked',
      { verb: 'denied', by: options.by },
    );
  }

  /**
   * Answers a parked call. For a tool's own `park(reason)`, `value` becomes the call's result. For a call
   * left `in_doubt` by a crash, say whether it happened: `{ happened: true, result }` records `result` as
   * its answer without running it; `{ happened: false }` runs it now, once. For an MCP server's
   * `question`, `{ action: 'accept', content }` (checked against the requested schema with its
   * defaults applied), `{ action: 'decline' }` or `{ action: 'cancel' }`: returned as the answer's output.
   */
  answer(id: string, value: unknown, options: Answerer = {}): Promise<ToolAnswer> {
    return untilSettled(() => this.answerOnce(id, value, options));
  }

  private async answerOnce(id: string, value: unknown, options: Answerer): Promise<ToolAnswer> {
    const item = await this.unexpired(await this.pending(id, 'answer'));
    checkPermitted(item, options, 'answered');
    if (item.kind === 'question') {
      const question = questionOf(item.detail);
      if (question === undefined)
        throw new ConflictError(
          'missing_detail',
          { item: id, kind: item.kind },
          `Inbox item "${id}" holds no question to answer; deny it instead.`,
        );
      const response = questionResponse(id, question, value);
      await this.mark(item, 'answered', options.by, { response });
      return okAnswer(response);
    }
    if (item.kind === 'approval' || item.kind === 'tool_change' || item.kind === 'authorize') {
      throw new ConflictError(
        'wrong_kind',
        { item: id, kind: item.kind },
        item.kind === 'authorize'
          ? `Inbox item "${id}" asks a person to sign in: open its URL; the sign-in completes it (or deny it).`
          : `Inbox item "${id}" asks for approval; use inbox.approve(id) or inbox.deny(id, { reason }).`,
      );
    }
    if (item.kind === 'in_doubt') {
      const happened = (value as { happened?: unknown } | null)?.happened;
      if (typeof happened !== 'boolean') {
        throw new InvalidAnswerError(
          `Inbox item "${id}" is a call a crash left in doubt: answer { happened: true, result } if it took effect, or { happened: false } to run it now.`,
        );
      }
      if (!happened) return this.letRun(item, options.by);
      await this.mark(item, 'answered', options.by);
      return this.runner.answerWithoutRunning(
        item,
        okAnswer((value as { result?: unknown }).result ?? null, item.labels),
        'parked',
        { verb: 'answered', by: options.by },
      );
    }
    await this.mark(item, 'answered', options.by);
    return this.runner.answerWithoutRunning(item, okAnswer(value, item.labels), 'parked', {
      verb: 'answered',
      by: options.by,
    });
  }

  /**
   * Approves a call of an MCP tool whose definition changed: the new definition (the one the person
   * saw, by its digest) is pinned for every node, then the call runs.
   */
  private acceptToolChange(item: InboxItem, by: string | undefined): Promise<ToolAnswer> {
    const change = toolChangeOf(item.detail);
    if (change === undefined)
      throw new ConflictError(
        'missing_detail',
        { item: item.id, kind: item.kind },
        `Inbox item "${item.id}" holds no changed tool definition to accept; deny it instead.`,
      );
    const pin = acceptedPin(change, this.clock.now());
    return this.letRun(item, by, () =>
      requireCapability(this.store, 'McpServerRecords', 'accepting a changed MCP tool definition').putMcpServer(pin),
    );
  }

  /**
   * Lets a parked call run: here, when this node offers its tool; otherwise the approval is recorded
   * and a node that offers the tool runs the call when it next recovers (every `recoverMs`). `accepted`
   * runs once the answer is recorded and before the call runs.
   */
  private async letRun(item: InboxItem, by: string | undefined, accepted?: () => Promise<void>): Promise<ToolAnswer> {
    const mark = async (): Promise<void> => {
      await this.mark(item, 'approved', by);
      await accepted?.();
    };
    // The journal names who let it go, beside the rule that asked (`CallRecord.decidedBy`).
    if (this.runner.offers(item.tool)) return this.runner.runApproved(by === undefined ? item : { ...item, by }, mark);
    await mark();
    const reason = `A person let this call go; it runs on the next node that offers ${item.tool}.`;
    return { status: 'parked', kind: item.kind as ParkedKind, inboxId: item.id, reason, labels: item.labels };
  }

  private async pending(id: string, verb: string): Promise<InboxItem> {
    const item = await this.store.getInboxItem(id);
    if (item === undefined)
      throw new NotFoundError(`No inbox item "${id}" to ${verb}; inbox.list() shows the pending ones.`);
    if (item.status !== 'pending') {
      const by = item.by === undefined ? '' : ` by ${item.by}`;
      throw new ConflictError(
        'already_answered',
        answeredData(item),
        `Inbox item "${id}" was already ${item.status}${by}; nothing ran.`,
      );
    }
    return item;
  }

  /**
   * Denies the items that waited `approvalTtlMs` (calls in doubt excepted: only a person can say whether
   * they happened), and escalates once those that waited `escalateAfterMs`, with an `inbox.escalated`
   * event. Runs every so often by itself (see `watchOverdue`); returns the ids it expired and escalated.
   */
  async handleOverdue(): Promise<{ expired: string[]; escalated: string[] }> {
    const done = { expired: [] as string[], escalated: [] as string[] };
    const ttl = this.policy?.approvalTtlMs;
    const escalateAfter = this.policy?.escalateAfterMs;
    if (ttl === undefined && escalateAfter === undefined) return done;
    for (const item of await this.store.listInbox()) {
      const waitedMs = this.clock.now() - item.createdAt;
      try {
        if (this.expires(item)) {
          await this.expire(item);
          done.expired.push(item.id);
        } else if (escalateAfter !== undefined && waitedMs >= escalateAfter && item.escalatedAt === undefined) {
          const revision = item.revision ?? 0;
          const escalated = { ...item, escalatedAt: this.clock.now(), revision: revision + 1 };
          // Raced by an answer: the next pass looks again.
          if (!(await this.store.updateInboxItem(escalated, 'pending', revision))) continue;
          await this.note(escalationNote(item, waitedMs));
          this.events.emit({
            type: 'inbox.escalated',
            agent: item.agent,
            run: item.run,
            call: item.call,
            tool: item.tool,
            inboxId: item.id,
            kind: item.kind,
            waitedMs,
          });
          done.escalated.push(item.id);
        }
      } catch (error) {
        // Answered, or approved toward its quorum, meanwhile: the next pass looks again.
        if (!(error instanceof ConflictError) && !(error instanceof Raced)) throw error;
      }
    }
    return done;
  }

  /**
   * Handles overdue items every tenth of the shorter wait (between 50 ms and a minute) until the returned
   * function is called; nothing when neither wait is set.
   */
  watchOverdue(onError: (error: unknown) => void): () => void {
    const waits = [this.policy?.approvalTtlMs, this.policy?.escalateAfterMs].filter(
      (ms): ms is number => ms !== undefined,
    );
    if (waits.length === 0) return () => undefined;
    let running = false;
    const timer = every(
      this.timers,
      Math.min(60_000, Math.max(50, Math.min(...waits) / 10)),
      () => {
        if (running) return;
        running = true;
        this.handleOverdue().then(
          () => (running = false),
          (error: unknown) => {
            running = false;
            onError(error);
          },
        );
      },
      { background: true },
    );
    return () => timer.cancel();
  }

  private expires(item: InboxItem): boolean {
    const ttl = this.policy?.approvalTtlMs;
    return ttl !== undefined && item.kind !== 'in_doubt' && this.clock.now() - item.createdAt >= ttl;
  }

  /** The item, unless its time ran out: then it is denied now, and the answer that came too late throws. */
  private async unexpired(item: InboxItem): Promise<InboxItem> {
    if (!this.expires(item)) return item;
    await this.expire(item);
    throw new ConflictError(
      'expired',
      { item: item.id, ttlMs: this.policy?.approvalTtlMs ?? 0 },
      `Inbox item "${item.id}" waited longer than policy.approvalTtlMs (${this.policy?.approvalTtlMs} ms), so it expired and was denied; nothing ran. The agent was told; ask it again if the call is still wanted.`,
    );
  }

  private async expire(item: InboxItem): Promise<void> {
    await this.mark(item, 'denied', EXPIRED_BY);
    const minutes = Math.round((this.policy?.approvalTtlMs ?? 0) / 60_000);
    const waited = minutes >= 1 ? `${minutes} minute${minutes === 1 ? '' : 's'}` : `${this.policy?.approvalTtlMs} ms`;
    const message = `Nobody answered this call within ${waited} (policy.approvalTtlMs), so it expired and did not run. Do not retry it on your own; tell the user it needs a person.`;
    await this.runner.answerWithoutRunning(item, errorAnswer('refused', message, item.labels), 'parked', {
      verb: 'denied',
      by: EXPIRED_BY,
    });
  }

  /**
   * Marks the item answered if nobody wrote it since it was read; the compare-and-set (on its revision)
   * is what makes an answer count once. Throws `already_answered` when someone answered first, and
   * `RACED` when the item only changed (an approval toward its quorum, an escalation): read it again.
   */
  private async mark(
    item: InboxItem,
    status: Exclude<InboxStatus, 'pending'>,
    by: string | undefined,
    extra: Pick<InboxRecord, 'response'> = {},
  ): Promise<void> {
    const revision = item.revision ?? 0;
    const next: InboxRecord = {
      ...item,
      ...extra,
      status,
      answeredAt: this.clock.now(),
      ...(by === undefined ? {} : { by }),
      revision: revision + 1,
    };
    if (!(await this.store.updateInboxItem(next, 'pending', revision))) {
      const now = await this.store.getInboxItem(item.id);
      if (now?.status === 'pending') throw RACED;
      throw new ConflictError(
        'already_answered',
        now === undefined ? { item: item.id, status: 'answered' } : answeredData(now),
        `Inbox item "${item.id}" was already ${now?.status ?? 'answered'} by someone else; nothing ran.`,
      );
    }
    await this.note(answerNote(next, status, by));
    this.events.emit(answeredEvent(item, status, by));
  }

  private async note(note: AuditNote): Promise<void> {
    await this.audit?.record(note.kind, note.data);
  }
}
