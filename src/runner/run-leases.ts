import type { Clock } from '../clock.js';
import type { Store } from '../store/store.js';

/**
 * The leases this node holds on runs (D3). A node holds a run's lease while any of the run's calls is
 * running here, renews it in the background, and gives it up when the run goes idle, so that another
 * node can take the run over (after the lease expires, if this node died). Recovery only touches calls
 * of runs whose lease it can take, so it never re-runs or parks a call a live node is still running.
 *
 * Lease operations on one run are serialized: a release and a new acquire never race in the store.
 */
export class RunLeases {
  private readonly held = new Map<string, { until: number; active: number }>();
  private readonly queues = new Map<string, Promise<unknown>>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    readonly node: string,
    private readonly ttlMs: number,
    private readonly onLost: (run: string) => void,
  ) {}

  /** Takes the run for one more piece of work; false when another node holds it. */
  acquire(run: string): Promise<boolean> {
    const lease = this.held.get(run);
    // Fast path: already working on this run here, with plenty of lease left.
    if (lease !== undefined && lease.active > 0 && lease.until - this.clock.now() > this.ttlMs / 2) {
      lease.active++;
      return Promise.resolve(true);
    }
    return this.serial(run, async () => {
      const now = this.clock.now();
      const current = this.held.get(run);
      if (current === undefined || current.until - now <= this.ttlMs / 2) {
        if (!(await this.store.leaseRun(run, this.node, now, this.ttlMs))) return false;
      }
      const next = current ?? { until: 0, active: 0 };
      next.until = Math.max(next.until, now + this.ttlMs);
      next.active++;
      this.held.set(run, next);
      this.startRenewing();
      return true;
    });
  }

  /** Ends one piece of work; the lease is given up when the run has none left here. */
  release(run: string): Promise<void> {
    const lease = this.held.get(run);
    if (lease === undefined) return Promise.resolve();
    lease.active--;
    if (lease.active > 0) return Promise.resolve();
    return this.serial(run, async () => {
      if (lease.active > 0 || this.held.get(run) !== lease) return;
      this.held.delete(run);
      await this.store.releaseRun(run, this.node);
    });
  }

  /** Stops renewing; leases still held expire on their own. */
  close(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private startRenewing(): void {
    if (this.timer !== undefined) return;
    this.timer = setInterval(() => void this.renew(), Math.max(1, Math.floor(this.ttlMs / 3)));
    this.timer.unref();
  }

  private async renew(): Promise<void> {
    if (this.held.size === 0) return this.close();
    for (const [run, lease] of this.held) {
      await this.serial(run, async () => {
        const now = this.clock.now();
        if (await this.store.leaseRun(run, this.node, now, this.ttlMs).catch(() => false)) lease.until = now + this.ttlMs;
        else if (lease.until < now) this.onLost(run);
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
