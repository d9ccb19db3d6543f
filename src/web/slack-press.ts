import { WebError } from './http.js';
import { APPROVE_ACTION, DENY_ACTION } from './slack-blocks.js';

/** A press of one of the inbox's buttons: who pressed which, for which item and digest, on which message. */
export interface Press {
  /** The Slack user id, such as `U0123ABCD`. */
  readonly user: string;
  readonly action: typeof APPROVE_ACTION | typeof DENY_ACTION;
  readonly item: string;
  /** The digest of the arguments the message showed. */
  readonly digest: string;
  readonly channel: string;
  /** The message's `ts`, what `chat.update` needs. */
  readonly ts: string;
}

const ID = /^[\w.:-]{1,200}$/;

/**
 * Reads the `payload` field Slack sends with a button press (`block_actions`). `undefined` for an
 * interaction that is not one of the inbox's buttons (acknowledged and left alone); a 400 for a payload
 * that is not what Slack sends.
 */
export function parsePress(payload: string | null): Press | undefined {
  let value: unknown;
  try {
    value = payload === null ? undefined : JSON.parse(payload);
  } catch {
    value = undefined;
  }
  if (value === null || typeof value !== 'object') throw malformed('no JSON "payload" field');
  const body = value as {
    type?: unknown;
    user?: { id?: unknown };
    actions?: unknown;
    container?: { channel_id?: unknown; message_ts?: unknown };
    channel?: { id?: unknown };
    message?: { ts?: unknown };
  };
  if (body.type !== 'block_actions') return undefined;
  const action = (Array.isArray(body.actions) ? body.actions[0] : undefined) as
    { action_id?: unknown; value?: unknown } | undefined;
  if (action?.action_id !== APPROVE_ACTION && action?.action_id !== DENY_ACTION) return undefined;
  const user = body.user?.id;
  const channel = body.container?.channel_id ?? body.channel?.id;
  const ts = body.container?.message_ts ?? body.message?.ts;
  if (typeof user !== 'string' || !ID.test(user)) throw malformed('no user id');
  if (typeof channel !== 'string' || !ID.test(channel) || typeof ts !== 'string' || !ID.test(ts))
    throw malformed('no channel and message ts');
  let carried: { item?: unknown; digest?: unknown } | undefined;
  try {
    carried = JSON.parse(String(action.value)) as typeof carried;
  } catch {
    carried = undefined;
  }
  const item = carried?.item;
  const digest = carried?.digest;
  if (typeof item !== 'string' || !ID.test(item) || typeof digest !== 'string' || !/^[0-9a-f]{64}$/.test(digest))
    throw malformed("a button value that is not the inbox's { item, digest }");
  return { user, action: action.action_id, item, digest, channel, ts };
}

function malformed(what: string): WebError {
  return new WebError(400, 'usage', `Not a Slack button press this inbox reads: ${what}.`);
}
