import { InvalidArgumentError } from 'commander';
import type { AuditListOptions } from '../store/audit-log.js';

/** `--since`: an entry number (from that entry on) or an ISO time (entries recorded then or later). */
export function since(value: string): AuditListOptions {
  if (/^\d+$/.test(value.trim())) return { from: Number(value) };
  const at = Date.parse(value);
  if (Number.isNaN(at))
    throw new InvalidArgumentError(
      'an entry number (such as 120) or an ISO time (such as 2026-12-01T00:00:00Z) is needed.',
    );
  return { since: at };
}
