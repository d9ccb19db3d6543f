/** What `audit` in `Wardrik.create` takes. */
export interface AuditOptions {
  /**
   * The name of a credential (resolved once at start-up by the credential provider, `Tokens.Credentials`;
   * the environment variable of that name by default) whose value signs every entry with HMAC-SHA256.
   * Entries are hash-chained but unsigned without it.
   */
  readonly signingKey?: string;
  /**
   * Entries older than this (ms) are deleted every `retention.everyMs`, leaving a checkpoint (signed with
   * the key) so the rest still verifies. Kept for ever unless set: the trail is not pruned with the runs.
   */
  readonly keepForMs?: number;
}
