import type { CallToolResult } from '@modelcontextprotocol/server';
import { MAY_HAVE_HAPPENED, StoreError } from '../errors.js';
import type { ToolRunner } from '../runner/tool-runner.js';
import type { Store } from '../store/store.js';
import { callResult, inDoubtResult } from './results.js';

/** What a served call answers when the store failed before it started. */
const NOT_RUN =
  "This call did not run: the server's store failed before it started. Nothing happened; call it again in a moment.";
/** The opening of what it answers when the tool ran and the store failed after. */
const RAN = "The tool ran, but the server's store failed before its outcome was recorded";

/**
 * What a served call answers when the store failed during it, instead of a bare internal error: the
 * runner's `StoreError` says whether the call ran. One that did not run says so. One whose tool ran is
 * settled at once, as recovery would settle it: the outcome if its write landed after all, run again if
 * it is repeatable, parked `in_doubt` for a person otherwise (the answer names the inbox item, as an
 * in-doubt answer does). While the store stays down, the answer says the call may have happened and
 * that it will wait in the inbox. `undefined` for any other failure.
 */
export async function storeFailureResult(
  runner: ToolRunner,
  store: Store,
  run: string,
  call: string,
  error: unknown,
  confidential: ReadonlySet<string>,
): Promise<CallToolResult | undefined> {
  if (!(error instanceof StoreError) || error.ran === undefined) return undefined;
  if (!error.ran) return { content: [{ type: 'text', text: NOT_RUN }], isError: true };
  try {
    let record = await store.getCall(run, call);
    if (record?.state === 'started') {
      await runner.resume(record);
      record = await store.getCall(run, call);
    }
    const answer = record?.answer;
    if (answer?.status === 'parked' && answer.kind === 'in_doubt' && answer.inboxId !== undefined)
      return inDoubtResult(`${RAN}, `, answer.inboxId, answer.labels, confidential);
    if (answer !== undefined && (record?.state === 'succeeded' || record?.state === 'failed'))
      return callResult(answer, confidential);
  } catch {
    // The store is still down (or the run busy elsewhere): recovery parks the call once it can.
  }
  const text = `${RAN}, ${MAY_HAVE_HAPPENED} Once the store is back, the call waits in the inbox, in doubt, for a person to settle it.`;
  return { content: [{ type: 'text', text }], isError: true };
}
