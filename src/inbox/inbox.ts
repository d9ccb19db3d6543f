import type { Clock } from '../clock.js';
import { ConflictError, NotFoundError } from '../errors.js';
import type { ToolRunner } from '../runner/tool-runner.js';
import type { InboxRecord, InboxStatus, Store } from '../store/store.js';
import type { EventBus } from '../telemetry/event-bus.js';
import { errorAnswer, okAnswer, type ToolAnswer } from '../tools/result.js';

/** A parked call, as a person sees it in the inbox. */
export type InboxItem = InboxRecord;

/**
 * Where a person answers parked calls: approvals, a tool's own `park(reason)`, and calls left in doubt
 * by a crash. Each item is answered once: a second answer, or an approval for arguments other than
 * those the person saw (`digest`), runs nothing and throws a `ConflictError` saying why.
 */
export class Inbox {
  constructor(
    private readonly store: Store,
    private readonly runner: ToolRunner,
    private readonly events: EventBus,
    private readonly clock: Clock,
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
   * the approval to exactly those arguments. Returns the call's answer.
   */
  async approve(id: string, options: { readonly by?: string; readonly digest?: string } = {}): Promise<ToolAnswer> {
    const item = await this.pending(id, 'approve');
    if (item.kind !== 'approval') {
      throw new ConflictError(
        `Inbox item "${id}" is a ${item.kind === 'park' ? "tool's own park" : 'call in doubt'}, not an approval; answer it with inbox.answer(id, value) or deny it.`,
      );
    }
    if (options.digest !== undefined && options.digest !== item.digest) {
      throw new ConflictError(
        `Inbox item "${id}": the approval was for other arguments (digest ${options.digest.slice(0, 12)}…, the call has ${item.digest.slice(0, 12)}…); nothing ran. Look at the item again and approve what it asks now.`,
      );
    }
    return this.letRun(item, options.by);
  }

  /** Refuses a parked call: the model is told a person refused it, and why. */
  async deny(id: string, options: { readonly reason: string; readonly by?: string }): Promise<ToolAnswer> {
    if (options === undefined || typeof options.reason !== 'string' || options.reason.trim() === '') {
      throw new TypeError(`inbox.deny("${id}", { reason }) needs a reason: the model reads it to decide what to do next.`);
    }
    const item = await this.pending(id, 'deny');
    await this.mark(item, 'denied', options.by);
    const who = options.by === undefined ? 'A person' : `A person (${options.by})`;
    return this.runner.answerWithoutRunning(item, errorAnswer('refused', `${who} refused this call: ${options.reason}`, item.labels), 'parked');
  }

  /**
   * Answers a parked call. For a tool's own `park(reason)`, `value` becomes the call's result. For a call
   * left `in_doubt` by a crash, say whether it happened: `{ happened: true, result }` records `result` as
   * its answer without running it; `{ happened: false }` runs it now, once.
   */
  async answer(id: string, value: unknown, options: { readonly by?: string } = {}): Promise<ToolAnswer> {
    const item = await this.pending(id, 'answer');
    if (item.kind === 'approval') {
      throw new ConflictError(`Inbox item "${id}" asks for approval; use inbox.approve(id) or inbox.deny(id, { reason }).`);
    }
    if (item.kind === 'in_doubt') {
      const happened = (value as { happened?: unknown } | null)?.happened;
      if (typeof happened !== 'boolean') {
        throw new TypeError(
          `Inbox item "${id}" is a call a crash left in doubt: answer { happened: true, result } if it took effect, or { happened: false } to run it now.`,
        );
      }
      if (!happened) return this.letRun(item, options.by);
      await this.mark(item, 'answered', options.by);
      return this.runner.answerWithoutRunning(item, okAnswer((value as { result?: unknown }).result ?? null, item.labels), 'parked');
    }
    await this.mark(item, 'answered', options.by);
    return this.runner.answerWithoutRunning(item, okAnswer(value, item.labels), 'parked');
  }

  /**
   * Lets a parked call run: here, when this node offers its tool; otherwise the approval is recorded
   * and a node that offers the tool runs the call when it next recovers (every `recoverMs`).
   */
  private async letRun(item: InboxItem, by: string | undefined): Promise<ToolAnswer> {
    if (this.runner.offers(item.tool)) return this.runner.runApproved(item, () => this.mark(item, 'approved', by));
    await this.mark(item, 'approved', by);
    const reason = `A person let this call go; it runs on the next node that offers ${item.tool}.`;
    return { status: 'parked', kind: item.kind, inboxId: item.id, reason, labels: item.labels };
  }

  private async pending(id: string, verb: string): Promise<InboxItem> {
    const item = await this.store.getInboxItem(id);
    if (item === undefined) throw new NotFoundError(`No inbox item "${id}" to ${verb}; inbox.list() shows the pending ones.`);
    if (item.status !== 'pending') {
      const by = item.by === undefined ? '' : ` by ${item.by}`;
      throw new ConflictError(`Inbox item "${id}" was already ${item.status}${by}; nothing ran.`);
    }
    return item;
  }

  /** Marks the item answered if nobody did first; the compare-and-set is what makes an answer count once. */
  private async mark(item: InboxItem, status: Exclude<InboxStatus, 'pending'>, by: string | undefined): Promise<void> {
    const next: InboxRecord = { ...item, status, answeredAt: this.clock.now(), ...(by === undefined ? {} : { by }) };
    if (!(await this.store.updateInboxItem(next, 'pending'))) {
      const now = await this.store.getInboxItem(item.id);
      throw new ConflictError(`Inbox item "${item.id}" was already ${now?.status ?? 'answered'} by someone else; nothing ran.`);
    }
    this.events.emit({
      type: 'tool.answered',
      agent: item.agent,
      run: item.run,
      call: item.call,
      tool: item.tool,
      inboxId: item.id,
      answer: status,
      ...(by === undefined ? {} : { by }),
    });
  }
}
