import type { Clock } from '../clock.js';
import type { Store } from '../store/store.js';

/**
 * The leases this node holds on runs (D3). A node holds a run's lease while any of the run's calls is
 * running here, renews it in the background, and gives it up once the run has been idle for `idleMs`
 * (kept that long so a run's next call needs no store round trip), so that another node can take the
 * run over (after the lease expires, if this node died). Recovery only touches calls of runs whose
 * lease it can take, so it never re-runs or parks a call a live node is still running.
 *
 * Lease operations on one run are serialized: a release and a new acquire never race in the store.
 *
 * The run's labels live with its lease: while this node holds the lease, its calls
 * read the labels from memory, not the store. Other nodes add labels to a run only under its lease
 * (a person's answer carries labels the run had when its call parked), so what this node read under
 * the lease and added since is all there is; the labels are forgotten when the lease is given up, when
 * it lapsed before being taken again (another node may have held it meanwhile), and when a parked turn
 * of the run resumes (`forgetLabels`).
 */
export class RunLeases {
  private readonly held = new Map<string, Lease>();
  private readonly queues = new Map<string, Promise<unknown>>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    readonly node: string,
    /** How long a lease lasts unless renewed. */
    readonly ttlMs: number,
    private readonly onLost: (run: string) => void,
    private readonly idleMs = 250,
  ) {}

  /**
   * Takes the run for one more piece of work; false when another node holds it. Answers at once, with
   * no promise, when this node already holds the run with plenty of lease left (every call's path).
   */
  acquire(run: string): boolean | Promise<boolean> {
    const lease = this.held.get(run);
    if (lease !== undefined && lease.until - this.clock.now() > this.ttlMs / 2) {
      lease.active++;
      return true;
    }
    return this.serial(run, async () => {
      const now = this.clock.now();
      const current = this.held.get(run);
      if (current === undefined || current.until - now <= this.ttlMs / 2) {
        if (!(await this.store.leaseRun(run, this.node, now, this.ttlMs))) return false;
      }
      const next: Lease = current ?? { until: 0, active: 0, idleSince: 0, idle: undefined, labels: undefined, epoch: 0 };
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
  labelsOf(run: string, read: () => readonly string[] | Promise<readonly string[]>): readonly string[] | Promise<readonly string[]> {
    const lease = this.held.get(run);
    if (lease === undefined || lease.until <= this.clock.now()) return read();
    if (lease.labels !== undefined) return lease.labels;
    const epoch = lease.epoch;
    const keep = (labels: readonly string[]): readonly string[] => {
      if (this.held.get(run) === lease && lease.epoch === epoch && lease.until > this.clock.now()) lease.labels = labels;
      return labels;
    };
    const reading = read();
    return reading instanceof Promise ? reading.then(keep) : keep(reading);
  }

  /** This node wrote `labels` to the run: they join those it keeps (a read under way is not kept: it may miss them). */
  addedLabels(run: string, labels: readonly string[]): void {
    const lease = this.held.get(run);
    if (lease === undefined) return;
    if (lease.labels === undefined) lease.epoch++;
    else if (labels.some((label) => !lease.labels!.includes(label))) lease.labels = [...new Set([...lease.labels, ...labels])];
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

  /** Ends one piece of work; the lease is given up once the run has had none here for `idleMs`. */
  release(run: string): void {
    const lease = this.held.get(run);
    if (lease === undefined || --lease.active > 0) return;
    // Real time, as the idle timer is a real timer. The timer is not moved on every call (that costs
    // more than the call): when it fires early for a run used since, it waits out the rest.
    lease.idleSince = performance.now();
    if (lease.idle === undefined) this.waitIdle(run, lease, this.idleMs);
  }

  private waitIdle(run: string, lease: Lease, ms: number): void {
    lease.idle = setTimeout(() => {
      lease.idle = undefined;
      if (lease.active > 0) return; // its next release waits again
      const left = this.idleMs - (performance.now() - lease.idleSince);
      if (left > 1) this.waitIdle(run, lease, left);
      else void this.giveUp(run, lease).catch(() => undefined); // it expires on its own if the store is down
    }, ms);
    lease.idle.unref();
  }

  /** Stops renewing and gives up every lease held, so other nodes can take the runs at once. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    for (const [run, lease] of [...this.held]) {
      clearTimeout(lease.idle);
      lease.active = 0;
      await this.giveUp(run, lease).catch(() => undefined);
    }
  }

  private giveUp(run: string, lease: Lease): Promise<void> {
    return this.serial(run, async () => {
      if (lease.active > 0 || this.held.get(run) !== lease) return;
      this.held.delete(run);
      await this.store.releaseRun(run, this.node);
    });
  }

  private startRenewing(): void {
    if (this.timer !== undefined) return;
    this.timer = setInterval(() => void this.renew(), Math.max(1, Math.floor(this.ttlMs / 3)));
    this.timer.unref();
  }

  private async renew(): Promise<void> {
    if (this.held.size === 0) {
      clearInterval(this.timer);
      this.timer = undefined;
      return;
    }
    for (const [run, lease] of this.held) {
      await this.serial(run, async () => {
        const now = this.clock.now();
        if (await this.store.leaseRun(run, this.node, now, this.ttlMs).catch(() => false)) {
          if (lease.until < now) forget(lease);
          lease.until = now + this.ttlMs;
        } else if (lease.until < now) this.onLost(run);
      });
    }
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
  /** When the last piece of work here ended (`performance.now()`). */
  idleSince: number;
  /** Gives the lease up once the run has been idle for a while. */
  idle: NodeJS.Timeout | undefined;
  /** The run's labels, once read under this lease (see `labelsOf`). */
  labels: readonly string[] | undefined;
  /** Raised whenever the labels are forgotten, so a read begun before is not kept. */
  epoch: number;
}

function forget(lease: Lease): void {
  lease.labels = undefined;
  lease.epoch++;
}
