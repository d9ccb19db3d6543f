/**
 * Bytes of request bodies held at once for requests no credential vouches for (a sign-in form, a
 * server without tokens), across all of them: a flood of slow bodies fills this, not the memory.
 */
export class BodyBudget {
  private used = 0;

  constructor(readonly maxBytes: number) {}

  /** Takes `bytes` if they fit; false (nothing taken) if not. */
  take(bytes: number): boolean {
    if (this.used + bytes > this.maxBytes) return false;
    this.used += bytes;
    return true;
  }

  giveBack(bytes: number): void {
    this.used = Math.max(0, this.used - bytes);
  }

  /** Bytes held now. */
  get inUse(): number {
    return this.used;
  }
}
