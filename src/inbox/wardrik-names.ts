/**
 * Whether `name` is, or looks like, one Wardrik records as `by` for itself (`wardrik (policy.approvalTtlMs)`,
 * `wardrik (the node running its call stopped; …)`): case, width, spacing and punctuation aside, it starts
 * with "wardrik". Nobody may answer under one, so an answer recorded under one is always Wardrik's own.
 */
export function isWardrikName(name: string): boolean {
  return name.normalize('NFKC').toLowerCase().replace(/[^\p{L}\p{N}]/gu, '').startsWith('wardrik');
}
