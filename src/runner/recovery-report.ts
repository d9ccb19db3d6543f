/** What `recover()` did. */
export interface RecoveryReport {
  /** Repeatable calls found in flight and run again with their idempotency key. */
  readonly rerun: number;
  /** Calls found in flight that are not safe to repeat, parked for a person as `in_doubt`. */
  readonly inDoubt: number;
  /** Parked calls whose inbox item a crash lost, put back. */
  readonly restored: number;
  /** Calls a person let go on a node without their tool (the `wardrik` command, say), run here. */
  readonly approved: number;
  /** In-flight calls of tools this node does not offer, left for a node that does. */
  readonly unoffered: number;
  /** In-flight calls left alone because a live node holds their run (or answered them since the pass looked). */
  readonly skipped: number;
}
