import type { Clock } from '../clock.js';
import { toMicroUsd, toUsd } from '../money.js';
import type { CallListener } from '../runner/call-listener.js';
import type { CallRef } from '../runner/call-failures.js';
import type { RunLeases } from '../runner/run-leases.js';
import type { InboxRecord, Store, TurnRecord } from '../store/store.js';
import { writeTurn } from '../store/journal-writes.js';
import type { EventBus } from '../telemetry/event-bus.js';
import type { ConversationHistory } from './conversation-history.js';
import type { AgentTracing } from './tracing.js';
import type { TurnDriver } from './turn-driver.js';
import { stepDataOf, storedTurnData, turnDataOf } from './turn-data.js';
import type { LiveTurn, Runtime } from './turn-state.js';

/**
 * Takes up turns this process did not start: `running` turns a crash or a dead node left (`recover`),
 * and parked turns whose calls have all been answered. The runner tells it when a call settles here
 * (`CallListener`), so a turn parked on a call a person answered in this process goes on by itself; one
 * answered on another node goes on at the next `recover()`. Nothing here reads the event stream.
 */
export class TurnRecovery implements CallListener {
  private readonly resuming = new Map<string, Promise<boolean>>();

  constructor(
    private readonly agents: ReadonlyMap<string, Runtime>,
    private readonly driver: TurnDriver,
    private readonly history: ConversationHistory,
    private readonly tracing: AgentTracing,
    private readonly store: Store,
    private readonly leases: Pick<RunLeases, 'acquire' | 'release' | 'forgetLabels'>,
    private readonly events: EventBus,
    private readonly clock: Clock,
    private readonly closed: () => boolean,
  ) {}

  /** A call settled here: a turn driving its run counts its cost; a parked call's turn may go on now. */
  settled(call: CallRef, costUsd: number, wasParked: boolean): void {
    // A parked call's cost is read from the journal when its turn resumes, wherever the call ran.
    if (!wasParked) this.countCost(call, costUsd);
    else if (!this.driver.active.has(call.run)) void this.resumeIfAnsweredSoon(call.run);
  }

  /** A call parked after costing `costUsd`: the turn driving its run counts it before it parks. */
  parked(call: CallRef, costUsd: number): void {
    this.countCost(call, costUsd);
  }

  /** A call's tool waits for a person: the turn driving its run parks on it (see `TurnToolCalls`). */
  waiting(call: CallRef, inboxId: string, reason: string): void {
    this.driver.live(call.run)?.waitingForPerson.get(call.call)?.(inboxId, reason);
  }

  private countCost(call: CallRef, costUsd: number): void {
    if (costUsd === 0) return;
    const d = this.driver.live(call.run);
    if (d !== undefined) d.spentUsd += costUsd;
  }

  /** Waits for the resumptions under way (the service is closing: no new ones start). */
  async close(): Promise<void> {
    await Promise.allSettled([...this.resuming.values()]);
  }

  /**
   * Takes up turns a crash or another node left: `running` turns of agents started here whose lease
   * this node can take resume from their journal, and parked turns whose calls have all been answered
   * go on. Returns the runs it took up; they go on in the background (`agent.result(run)` waits).
   * Call it after the runner's own recovery, so calls left in flight have their answers first.
   */
  async recover(): Promise<string[]> {
    const taken: string[] = [];
    if (this.closed() || this.agents.size === 0) return taken;
    for (const turn of await this.store.listTurns({ status: 'running' })) {
      const rt = this.agents.get(turn.agent);
      if (rt === undefined || this.driver.active.has(turn.run) || !this.readable(turn)) continue;
      if (!(await this.leases.acquire(turn.run))) continue;
      const next: TurnRecord = { ...turn, version: turn.version + 1, updatedAt: this.clock.now() };
      // The compare-and-set makes one node the taker, even if two got the lease one after the other.
      if (this.driver.active.has(turn.run) || !(await writeTurn(this.store, next, turn.version))) {
        this.leases.release(turn.run);
        continue;
      }
      this.events.emit({ type: 'run.resumed', agent: turn.agent, run: turn.run, reason: 'recovered' });
      taken.push(turn.run);
      this.background(rt, next);
    }
    for (const turn of await this.store.listTurns({ status: 'parked' })) {
      if (this.agents.has(turn.agent) && (await this.resumeIfAnsweredSoon(turn.run))) taken.push(turn.run);
    }
    return taken;
  }

  /** False, with a warning naming the run, for a turn whose data this Wardrik cannot read: it is left as it is. */
  private readable(turn: TurnRecord): boolean {
    try {
      turnDataOf(turn);
      return true;
    } catch (error) {
      this.events.emit({
        type: 'warning',
        message: `Turn "${turn.run}" of agent "${turn.agent}" is not taken up: ${(error as Error).message}`,
      });
      return false;
    }
  }

  /** Resumes parked turn `run` if every call it waits on has its final answer; true if it did. */
  resumeIfAnsweredSoon(run: string): Promise<boolean> {
    const previous = this.resuming.get(run) ?? Promise.resolve(false);
    const next = previous.then(
      () => this.resumeIfAnswered(run),
      () => this.resumeIfAnswered(run),
    );
    const tail = next.catch((error: unknown) => {
      this.events.emit({
        type: 'warning',
        message: `Could not resume turn "${run}": ${(error as Error).message}. recover() tries again.`,
      });
      return false;
    });
    this.resuming.set(run, tail);
    void tail.then(() => {
      if (this.resuming.get(run) === tail) this.resuming.delete(run);
    });
    return tail;
  }

  private async resumeIfAnswered(run: string): Promise<boolean> {
    if (this.closed() || this.driver.active.has(run)) return false;
    const turn = await this.store.getTurn(run);
    if (turn === undefined || turn.status !== 'parked') return false;
    const rt = this.agents.get(turn.agent);
    if (rt === undefined) return false;
    const data = turnDataOf(turn);
    let approvedMicroUsd = 0;
    for (const call of data.parked) {
      const record = await this.store.getCall(run, call.call);
      if (record === undefined || record.state === 'parked' || record.state === 'started') return false;
      // A call a person let go ran after the turn parked, on this node or another, and a call the turn parked
      // on while its server's question waited ran on: what it cost is in its journal entry (a run after
      // approval starts its cost afresh), and it is the turn's spend too.
      if (record.costUsd !== undefined && ranAfterParking(await this.store.getInboxItem(call.inboxId)))
        approvedMicroUsd += toMicroUsd(record.costUsd);
    }
    if (!(await this.leases.acquire(run))) return false;
    // A person answered while the turn was parked, maybe on another node: the run's labels are read again.
    this.leases.forgetLabels(run);
    const spentUsd = approvedMicroUsd === 0 ? data.spentUsd : data.spentUsd + toUsd(approvedMicroUsd);
    const next: TurnRecord = {
      ...turn,
      status: 'running',
      version: turn.version + 1,
      data: storedTurnData({ ...data, spentUsd }),
      updatedAt: this.clock.now(),
    };
    if (this.driver.active.has(run) || !(await writeTurn(this.store, next, turn.version))) {
      this.leases.release(run);
      return false;
    }
    this.events.emit({ type: 'run.resumed', agent: turn.agent, run, reason: 'answered' });
    this.background(rt, next);
    return true;
  }

  /** Drives a turn taken up from the store (it holds the lease already) without a caller waiting. */
  private background(rt: Runtime, record: TurnRecord): void {
    this.driver.active.add(record.run);
    void (async () => {
      let d: LiveTurn;
      try {
        // A turn taken up here (recovered, or resumed by an answer) is this process's first span, maybe.
        const [history, steps] = await Promise.all([
          this.history.before(rt, record.createdAt),
          this.store.listSteps(record.run),
          this.tracing.ready(),
        ]);
        d = this.driver.prepare(rt, record, history.messages, steps.map(stepDataOf), undefined, history.values);
      } catch (error) {
        this.driver.active.delete(record.run);
        this.leases.release(record.run);
        throw error;
      }
      await this.driver.drive(d);
    })().catch((error: unknown) => {
      if (this.closed()) return;
      this.events.emit({
        type: 'warning',
        message: `Turn "${record.run}" of agent "${rt.id}" stopped: ${(error as Error).message}. recover() takes it up again.`,
      });
    });
  }
}

/** Whether the call of a parked turn's item ran after the turn parked: a person let it go, or it was a question asked during the call. */
function ranAfterParking(item: InboxRecord | undefined): boolean {
  return item?.status === 'approved' || item?.kind === 'question';
}
