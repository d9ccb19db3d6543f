import type { Clock } from '../clock.js';
import { ConfigurationError } from '../errors.js';
import { requireCapability } from '../store/capabilities.js';
import type { Store } from '../store/store.js';
import { glob } from '../tools/glob.js';
import { errorAnswer, type ToolAnswer } from '../tools/result.js';
import type { PreparedCall } from './prepared-call.js';

/** How long a run's count of calls is kept: past any run's life (retention keeps finished runs 30 days unless set). */
const COUNTED_FOR_MS = 400 * 24 * 60 * 60 * 1000;
const MOST = 10_000;

/**
 * Calls per tool per run (`maxCalls`): each call that is about to run or ask takes one of the tool's
 * numbered places in the run, a claim in the store (the same compare-and-set that remembered keys use),
 * so calls at once on any number of nodes take at most `maxCalls` places. A call sent again keeps its
 * place; a call with no place left ends `denied`, unrun.
 */
export class CallLimits {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  /**
   * Takes the call a place among its tool's calls in its run: `{ place }` (the claim's key, none without a
   * limit) when it may go on, `{ refused }` with its answer when the run has no place left.
   */
  async take(
    p: PreparedCall,
    limits: Readonly<Record<string, number>> | undefined,
  ): Promise<{ readonly place?: string; readonly refused?: ToolAnswer }> {
    const limit = limitFor(limits, p.tool);
    if (limit === undefined) return {};
    const claims = this.claims();
    const owner = ownerOf(p);
    const now = this.clock.now();
    for (let place = 1; place <= limit; place++) {
      const key = `wardrik:max-calls:${JSON.stringify([p.run, p.tool, place])}`;
      const outcome = await claims.claimRemembered({ key, digest: '', owner, expiresAt: now + COUNTED_FOR_MS }, now);
      if (outcome.claimed) return { place: key };
    }
    return { refused: refusal(p.tool, limit) };
  }

  /** Gives a place back, for a call that ended without starting (its run busy on another node, its budget spent). */
  async giveBack(p: PreparedCall, place: string): Promise<void> {
    await this.claims().releaseRemembered(place, ownerOf(p));
  }

  private claims() {
    return requireCapability(this.store, 'RememberedResults', 'maxCalls (calls per tool per run)');
  }
}

function ownerOf(p: PreparedCall): string {
  return JSON.stringify([p.run, p.call]);
}

function refusal(tool: string, limit: number): ToolAnswer {
  return errorAnswer(
    'denied',
    `This run has made ${limit} call${limit === 1 ? '' : 's'} of ${tool}, the most maxCalls allows, so this one did not run. Do not try it again in this run; tell the user the limit was reached.`,
  );
}

/** The smallest limit of the patterns that match `tool`, if any does. */
export function limitFor(limits: Readonly<Record<string, number>> | undefined, tool: string): number | undefined {
  if (limits === undefined) return undefined;
  let least: number | undefined;
  for (const [pattern, limit] of Object.entries(limits))
    if ((pattern === '*' || pattern === '**' || glob(pattern)(tool)) && (least === undefined || limit < least))
      least = limit;
  return least;
}

/** Checks `maxCalls` where it is given (`where` names the owner in errors): patterns on `toolset/tool`, whole counts. */
export function checkCallLimits(limits: unknown, where: string): void {
  if (limits === undefined) return;
  if (limits === null || typeof limits !== 'object' || Array.isArray(limits))
    throw new ConfigurationError(
      `${where}: maxCalls maps tool patterns to the most calls per run, such as { 'orders/refund_order': 3 }; got ${JSON.stringify(limits)}.`,
    );
  for (const [pattern, limit] of Object.entries(limits)) {
    if (pattern === '' || (!pattern.includes('/') && pattern !== '*' && pattern !== '**'))
      throw new ConfigurationError(
        `${where}: maxCalls pattern ${JSON.stringify(pattern)} is not a pattern on "toolset/tool", such as "orders/*".`,
      );
    if (!Number.isSafeInteger(limit) || (limit as number) < 1 || (limit as number) > MOST)
      throw new ConfigurationError(
        `${where}: maxCalls.* (for "${pattern}") is the most calls of each such tool in one run, a whole number from 1 to ${MOST}; got ${JSON.stringify(limit)}.`,
      );
  }
}
