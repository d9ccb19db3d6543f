import { every, type Clock, type Timer, type Timers } from '../clock.js';
import type { JournalWrite, Store } from '../store/store.js';
import { leaseRun } from '../store/journal-writes.js';
import { then } from './maybe.js';

/**
 * The leases this node holds on runs (D3). A node holds a run's lease while any of the run's calls is
 * running here, renews it in the background, and gives it up once the run has been idle for `idleMs`
 * (`LEASE_IDLE_MS`)
 * (kept that long so a run's next call needs no store round trip), so that another node can take the
 * run over (after the lease expires, if this node died). Renewals, and the releases of runs gone idle,
 * are one commit for all the runs at a time. Recovery only touches calls of runs whose
 * lease it can take, so it never re-runs or parks a call a live node is still running.
 *
 * Lease operations on one run are serialized: a release and a new acquire never race in the store.
 *
 * The store keeps a lease's times on its own clock (a `lease` journal write), so nodes whose clocks disagree
 * agree on who holds a run. This node's `until` is its own estimate, on its own clock, from a time read
 * before the store wrote the lease: it ends no later than the store's, so it only ever renews early.
 *
 * The run's labels live with its lease: while this node holds the lease, its calls
 * read the labels from memory, not the store. Other nodes add labels to a run only under its lease
 * (a person's answer carries labels the run had when its call parked), so what this node read under
 * the lease and added since is all there is; the labels are forgotten when the lease is given up, when
 * it lapsed before being taken again (another node may have held it meanwhile), and when a parked turn
 * of the run resumes (`forgetLabels`).
 */
/** How long a run this node holds stays leased once it has no work here: its next call needs no store round trip. */
export const LEASE_IDLE_MS = 250;

export class RunLeases {
  private readonly held = new Map<string, Lease>();
  private readonly queues = new Map<string, Promise<unknown>>();
  /** Renews the leases held. */
  private timer: Timer | undefined;
  /** Gives up the leases of idle runs. */
  private sweeper: Timer | undefined;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly timers: Timers,
    readonly node: string,
    /** How long a lease lasts unless renewed. */
    readonly ttlMs: number,
    /** How long a run stays leased here once idle (`LEASE_IDLE_MS`). */
    private readonly idleMs: number,
    private readonly onLost: (run: string) => void,
  ) {}

  /**
   * Takes the run for one more piece of work; false when another node holds it. Answers at once, with
   * no promise, when this node already holds the run with plenty of lease left (every call's path).
   * With `whileStarted` (a call to take over), the store takes the run only while that call is still
   * `started`: recovery must not hold a live run, even for a moment, for a call answered since it looked.
   */
  acquire(run: string, whileStarted?: string): boolean | Promise<boolean> {
    const lease = this.held.get(run);
    if (lease !== undefined && lease.until - this.clock.now() > this.ttlMs / 2) {
      lease.active++;
      return true;
    }
    return this.serial(run, async () => {
      const now = this.clock.now();
      const current = this.held.get(run);
      if (current === undefined || current.until - now <= this.ttlMs / 2) {
        if (!(await leaseRun(this.store, run, this.node, this.ttlMs, whileStarted))) return false;
      }
      const next: Lease = current ?? { until: 0, active: 0, idleSince: 0, labels: undefined, epoch: 0 };
      if (next.until < now) forget(next); // it lapsed: another node may have held the run meanwhile
      next.until = Math.max(next.until, now + this.ttlMs);
      next.active++;
      this.held.set(run, next);
      this.startRenewing();
      return true;
    });
  }

  /**
   * The run's labels: from memory while this node holds the run's lease and has them, otherwise read
   * with `read` and kept if the lease was held, unchanged, throughout the read. Without a promise when
   * they are in memory or `read` answers at once.
   */
  labelsOf(
    run: string,
    read: () => readonly string[] | Promise<readonly string[]>,
  ): readonly string[] | Promise<readonly string[]> {
    const lease = this.held.get(run);
    if (lease === undefined || lease.until <= this.clock.now()) return read();
    if (lease.labels !== undefined) return lease.labels;
    const epoch = lease.epoch;
    const keep = (labels: readonly string[]): readonly string[] => {
      if (this.held.get(run) === lease && lease.epoch === epoch && lease.until > this.clock.now())
        lease.labels = labels;
      return labels;
    };
    return then(read(), keep);
  }

  /** This node wrote `labels` to the run: they join those it keeps (a read under way is not kept: it may miss them). */
  addedLabels(run: string, labels: readonly string[]): void {
    const lease = this.held.get(run);
    if (lease === undefined) return;
    if (lease.labels === undefined) lease.epoch++;
    else if (labels.some((label) => !lease.labels!.includes(label)))
      lease.labels = [...new Set([...lease.labels, ...labels])];
  }

  /** This node holds the run and knows its labels outright (a run it has just made): no read needed. */
  labelsKnown(run: string, labels: readonly string[]): void {
    const lease = this.held.get(run);
    if (lease !== undefined) {
      lease.labels = labels;
      lease.epoch++;
    }
  }

  /** Reads the run's labels from the store again on their next use (a parked turn resumes: a person may have answered elsewhere). */
  forgetLabels(run: string): void {
    const lease = this.held.get(run);
    if (lease !== undefined) forget(lease);
  }

  /**
   * Takes the lease of a run this node has just made, in the same commit as `writes` (the turn's first
   * record): one commit, not two. Answers `writes`' results, or undefined when the lease was refused
   * (the id is taken: nothing of the run is this node's). Nobody else knows a new run's id, so it is
   * refused only if the id is taken.
   */
  async takeNew(run: string, writes: readonly JournalWrite[]): Promise<boolean[] | undefined> {
    return this.serial(run, async () => {
      const now = this.clock.now();
      const [leased, ...results] = await this.store.writeJournal([
        { lease: { run, node: this.node, ttlMs: this.ttlMs } },
        ...writes,
      ]);
      if (leased !== true) return undefined;
      this.held.set(run, { until: now + this.ttlMs, active: 1, idleSince: 0, labels: undefined, epoch: 0 });
      this.startRenewing();
      return results;
    });
  }

  /** Ends one piece of work; the lease is given up once the run has had none here for `idleMs`. */
  release(run: string): void {
    const lease = this.held.get(run);
    if (lease === undefined || --lease.active > 0) return;
    lease.idleSince = this.clock.now();
    this.startSweeping();
  }

  /**
   * Stops renewing and gives up every lease held, so other nodes can take the runs at once: returns once
   * the releases are in the store, a sweep's under way too.
   */
  async close(): Promise<void> {
    this.timer?.cancel();
    this.timer = undefined;
    this.sweeper?.cancel();
    this.sweeper = undefined;
    for (const lease of this.held.values()) lease.active = 0;
    await Promise.all([this.giveUp([...this.held.keys()]).catch(() => undefined), ...this.queues.values()]);
  }

  /**
   * Gives up, in one commit, the leases of the runs idle for `idleMs` (one timer for all runs: a timer a
   * run, each with a commit of its own, cost more than the turn it followed). A run with a lease operation
   * under way waits for the next sweep.
   */
  private startSweeping(): void {
    if (this.sweeper !== undefined) return;
    this.sweeper = every(
      this.timers,
      Math.max(1, Math.floor(this.idleMs / 4)),
      () => {
        const now = this.clock.now();
        const idle = [...this.held].filter(
          ([run, lease]) => lease.active === 0 && now - lease.idleSince >= this.idleMs && !this.queues.has(run),
        );
        if (idle.length > 0)
          void this.giveUp(idle.map(([run]) => run)).catch(() => undefined); // it expires on its own if the store is down
        else if ([...this.held.values()].every((lease) => lease.active > 0)) {
          this.sweeper?.cancel();
          this.sweeper = undefined;
        }
      },
      { background: true },
    );
  }

  /**
   * Gives up the leases of `runs` in one commit, after the lease operations under way on them; an acquire
   * of one of them waits for it. A run an acquire under way took again keeps its new lease.
   */
  private giveUp(runs: readonly string[]): Promise<unknown> {
    if (runs.length === 0) return Promise.resolve();
    for (const run of runs) this.held.delete(run);
    const under = runs.flatMap((run) => this.queues.get(run) ?? []);
    const released = Promise.all(under).then(() => {
      const free = runs.filter((run) => !this.held.has(run));
      return free.length === 0
        ? []
        : this.store.writeJournal(free.map((run) => ({ release: { run, node: this.node } })));
    });
    for (const run of runs) void this.serial(run, () => released).catch(() => undefined);
    return released;
  }

  private startRenewing(): void {
    if (this.timer !== undefined) return;
    // A failed renewal is tried again at the next tick of the timer; its lease lapses if none takes.
    const renewMs = Math.max(1, Math.floor(this.ttlMs / 3));
    this.timer = every(this.timers, renewMs, () => void this.renew().catch(() => undefined), { background: true });
  }

  /** Renews every lease held, in one commit; one with a lease operation under way is renewed by it. */
  private async renew(): Promise<void> {
    if (this.held.size === 0) {
      this.timer?.cancel();
      this.timer = undefined;
      return;
    }
    const now = this.clock.now();
    const leases = [...this.held].filter(([run]) => !this.queues.has(run));
    if (leases.length === 0) return;
    const renewing = this.store.writeJournal(
      leases.map(([run]) => ({ lease: { run, node: this.node, ttlMs: this.ttlMs } })),
    );
    for (const [run] of leases) void this.serial(run, () => renewing).catch(() => undefined);
    const renewed = await renewing.catch(() => leases.map(() => false));
    leases.forEach(([run, lease], i) => {
      if (this.held.get(run) !== lease) return;
      if (renewed[i] === true) {
        if (lease.until < now) forget(lease);
        lease.until = Math.max(lease.until, now + this.ttlMs);
      } else if (lease.until < now) this.onLost(run);
    });
  }

  private serial<T>(run: string, op: () => Promise<T>): Promise<T> {
    const result = (this.queues.get(run) ?? Promise.resolve()).then(op);
    const tail = result.catch(() => undefined);
    this.queues.set(run, tail);
    void tail.then(() => {
      if (this.queues.get(run) === tail) this.queues.delete(run);
    });
    return result;
  }
}

interface Lease {
  until: number;
  /** Pieces of work running under it here. */
  active: number;
  /** When the last piece of work here ended (on the clock). */
  idleSince: number;
  /** The run's labels, once read under this lease (see `labelsOf`). */
  labels: readonly string[] | undefined;
  /** Raised whenever the labels are forgotten, so a read begun before is not kept. */
  epoch: number;
}

function forget(lease: Lease): void {
  lease.labels = undefined;
  lease.epoch++;
}
