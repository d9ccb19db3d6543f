import { AuditTrail } from '../audit/audit-trail.js';
import type { AuditOptions } from '../audit/options.js';
import { ConfigurationError } from '../errors.js';
import { numberOption } from '../options.js';
import { PassQueue } from '../runner/pass-queue.js';
import { requireCapability } from '../store/capabilities.js';
import { repeat } from './repeat.js';
import type { Services } from './services.js';

/** What the credential provider is told when it is asked for the audit trail's signing key. */
export const AUDIT_CREDENTIAL_CONTEXT = Object.freeze({ hub: '(audit)', server: '(audit)' });

/**
 * Starts the audit trail `audit` asks for: checks the store has an `AuditLog`, resolves the signing key
 * once, has the runner and the inbox record in it, and prunes it every `pruneEveryMs` when `keepForMs` is
 * set. Returns what stops the pruning (resolving once a pass under way ended). Nothing for a store opened read-only: it records nothing.
 */
export async function startAudit(
  services: Services,
  audit: AuditOptions | undefined,
  pruneEveryMs: number,
): Promise<() => Promise<void>> {
  const none = async (): Promise<void> => undefined;
  if (audit === undefined || services.store.readOnly === true) return none;
  const keepForMs = numberOption('audit.keepForMs', audit.keepForMs, Infinity, {
    min: 1,
    infinity: true,
    unit: 'milliseconds',
  });
  const log = requireCapability(
    services.store,
    'AuditLog',
    'the audit trail (audit in Wardrik.create)',
    'leave audit out',
  );
  let key: string | undefined;
  if (audit.signingKey !== undefined) {
    key = await services.credentials.resolve(audit.signingKey, AUDIT_CREDENTIAL_CONTEXT);
    if (key === undefined || key === '')
      throw new ConfigurationError(
        `audit.signingKey names the credential "${audit.signingKey}", which the credential provider does not have ` +
          `(by default: an environment variable of that name). Set it, or leave signingKey out for an unsigned trail.`,
      );
  }
  const trail = new AuditTrail(log, services.clock, key);
  services.runner.auditTo(trail);
  services.inbox.audit = trail;
  if (keepForMs === Infinity) return none;
  const passes = new PassQueue(() => trail.prune(services.clock.now() - keepForMs));
  const stop = repeat(passes, services.timers, pruneEveryMs, (error: unknown) =>
    services.events.emit({
      type: 'warning',
      message: `Pruning the audit trail failed and will be tried again: ${(error as Error).message}`,
    }),
  );
  return () => {
    stop();
    return passes.stop();
  };
}
