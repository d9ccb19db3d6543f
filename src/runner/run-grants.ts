import type { Clock } from '../clock.js';
import type { Decision, LabelGate } from '../policy/policy.js';
import type { InboxRecord, Store } from '../store/store.js';
import { hasCapability, requireCapability } from '../store/capabilities.js';
import { okAnswer } from '../tools/result.js';
import { argumentsDigest } from './digest.js';

/**
 * A person's approval with `scope: 'run'`: later calls of the same tool, by the same agent in the same
 * run, go without asking, as long as the fields in `allowIf` equal the approved call's, and the run
 * gained no label since the person approved that can change the policy's decision on the tool (new
 * outside text asks again; a confidential read ends it only for a tool that reaches outside).
 */
export interface RunGrant {
  readonly agent: string;
  readonly tool: string;
  /** Field name to the digest of the approved value. */
  readonly fields: Readonly<Record<string, string>>;
  readonly labels: readonly string[];
  readonly by?: string;
  readonly inboxId: string;
  readonly at: number;
}

/** What a later call shows to be let go by a grant. */
export interface GrantQuery {
  readonly agent: string;
  readonly run: string;
  readonly tool: string;
  readonly arguments: unknown;
  readonly labels: readonly string[];
  /** The labels whose arrival ends a grant for this tool (`Policy.labelsThatGate`). */
  readonly gate: LabelGate;
}

const VERSION = 1;
/** Grants live as long as a run plausibly does; a run is never resumed after its journal is pruned. */
const KEEP_MS = 30 * 24 * 3_600_000;

/**
 * The run-scoped approvals, kept in the store under one key per run (`wardrik:run-grants:<run>`), so
 * every node sharing the store sees them. Two approvals of one run written at once may keep only one:
 * the other's later calls then ask again, which is the safe side.
 */
export class RunGrants {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  /** Records item's approval for the rest of its run, for calls whose `allowIf` fields equal `approved`'s. */
  async grant(
    item: InboxRecord,
    approved: unknown,
    allowIf: readonly string[],
    by: string | undefined,
  ): Promise<RunGrant> {
    const values = (approved ?? {}) as Record<string, unknown>;
    const fields: Record<string, string> = {};
    for (const field of allowIf) fields[field] = argumentsDigest(values[field] ?? null);
    const now = this.clock.now();
    const grant: RunGrant = {
      agent: item.agent,
      tool: item.tool,
      fields,
      labels: [...item.labels],
      inboxId: item.id,
      at: now,
      ...(by === undefined ? {} : { by }),
    };
    const grants = [...(await this.of(item.run)), grant];
    await requireCapability(
      this.store,
      'RememberedResults',
      "an approval for the rest of a run (scope: 'run')",
      'approve for the call only',
    ).putRemembered({
      key: keyOf(item.run),
      digest: '',
      answer: okAnswer({ version: VERSION, grants }),
      expiresAt: now + KEEP_MS,
    });
    return grant;
  }

  /** The decision of the first grant that lets `query` go, if any. */
  async find(query: GrantQuery): Promise<Decision | undefined> {
    const grants = await this.of(query.run);
    const args = (query.arguments ?? {}) as Record<string, unknown>;
    for (const grant of grants) {
      if (grant.agent !== query.agent || grant.tool !== query.tool) continue;
      // Guard (grant-ends-on-gating-label): a label that can change the tool's decision, new since, asks again.
      if (query.labels.some((label) => !grant.labels.includes(label) && query.gate.has(label))) continue;
      if (!Object.entries(grant.fields).every(([field, digest]) => argumentsDigest(args[field] ?? null) === digest))
        continue;
      const scope =
        Object.keys(grant.fields).length === 0 ? 'any arguments' : `the same ${Object.keys(grant.fields).join(', ')}`;
      return {
        action: 'allow',
        rule: `approved for the rest of the run by ${grant.by ?? 'a person'} (inbox item ${grant.inboxId}), ${scope}`,
      };
    }
    return undefined;
  }

  private async of(run: string): Promise<RunGrant[]> {
    // A store that remembers nothing holds no grant: none was ever given on it (`grant` refuses).
    if (!hasCapability(this.store, 'RememberedResults')) return [];
    const record = await this.store.getRemembered(keyOf(run), this.clock.now());
    return record === undefined ? [] : parseGrants(record.answer.status === 'ok' ? record.answer.output : undefined);
  }
}

function keyOf(run: string): string {
  return `wardrik:run-grants:${run}`;
}

/** Grants as stored, read through a parser: anything that is not a well-formed grant is dropped (it would only ask again). */
function parseGrants(value: unknown): RunGrant[] {
  const stored = value as { version?: unknown; grants?: unknown } | null;
  if (stored === null || typeof stored !== 'object' || stored.version !== VERSION || !Array.isArray(stored.grants))
    return [];
  const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');
  return stored.grants.filter((g: unknown): g is RunGrant => {
    const grant = g as Partial<RunGrant> | null;
    return (
      grant !== null &&
      typeof grant === 'object' &&
      typeof grant.agent === 'string' &&
      typeof grant.tool === 'string' &&
      typeof grant.inboxId === 'string' &&
      typeof grant.at === 'number' &&
      (grant.by === undefined || typeof grant.by === 'string') &&
      strings(grant.labels) &&
      grant.fields !== null &&
      typeof grant.fields === 'object' &&
      Object.values(grant.fields).every((d) => typeof d === 'string')
    );
  });
}
