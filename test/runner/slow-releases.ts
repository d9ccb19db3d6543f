import { MemoryStore } from '../../src/index.js';
import type { JournalWrite } from '../../src/store/store.js';

/** A memory store whose lease releases wait at a gate until `open()`: a release stays under way while a test acts. */
export class SlowReleases extends MemoryStore {
  /** A release has reached the store and waits at the gate. */
  releasing = false;
  readonly open: () => void;
  private readonly gate: Promise<void>;

  constructor() {
    super();
    let open!: () => void;
    this.gate = new Promise<void>((resolve) => (open = resolve));
    this.open = open;
  }

  override async writeJournal(writes: readonly JournalWrite[]): Promise<boolean[]> {
    if (writes.some((write) => 'release' in write)) {
      this.releasing = true;
      await this.gate;
    }
    return super.writeJournal(writes);
  }
}
