import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/**
 * Slack's request signing: `X-Slack-Signature: v0=<hex HMAC-SHA256 of "v0:timestamp:body">` under the
 * app's signing secret, with `X-Slack-Request-Timestamp` in whole seconds. The time is signed with the
 * body, so a captured request sent again after the tolerance is refused by its age; one sent again within
 * it is refused by its signature, remembered by the caller.
 */

/** How far a request's timestamp may be from the clock, either way: 5 minutes, as Slack advises. */
export const SLACK_TOLERANCE_MS = 5 * 60_000;
/** A timestamp longer than this is no time in seconds: refused before it is read as a number. */
const TIMESTAMP_DIGITS = 12;

/** The `X-Slack-Signature` value for one request. */
export function slackSignature(secret: string, timestamp: string, body: string): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:`).update(body).digest('hex')}`;
}

/** What checking a request found: its signature and send time, or why it is refused. */
export type SlackVerification =
  | { readonly ok: true; readonly signature: string; readonly sentAt: number }
  | { readonly ok: false; readonly reason: string };

/** Checks a request from Slack: its signature over the raw body, compared in constant time, and its age. */
export function verifySlackRequest(
  secret: string,
  request: IncomingMessage,
  body: string,
  now: number,
): SlackVerification {
  const timestamp = request.headers['x-slack-request-timestamp'];
  const signature = request.headers['x-slack-signature'];
  if (typeof timestamp !== 'string' || typeof signature !== 'string')
    return { ok: false, reason: 'the X-Slack-Request-Timestamp and X-Slack-Signature headers must each come once' };
  if (timestamp.length > TIMESTAMP_DIGITS || !/^\d+$/.test(timestamp))
    return { ok: false, reason: 'X-Slack-Request-Timestamp is not whole seconds since the epoch' };
  const sentAt = Number(timestamp) * 1_000;
  const offMs = sentAt - now;
  if (Math.abs(offMs) > SLACK_TOLERANCE_MS)
    return {
      ok: false,
      reason: `X-Slack-Request-Timestamp is ${Math.round(Math.abs(offMs) / 1_000)} s ${offMs < 0 ? 'old' : 'ahead'}, outside the tolerance of ${SLACK_TOLERANCE_MS / 1_000} s: a request sent again later, or a clock that is off`,
    };
  const expected = Buffer.from(slackSignature(secret, timestamp, body));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    return {
      ok: false,
      reason: 'X-Slack-Signature does not match: another signing secret, or a changed body (the raw body is signed)',
    };
  return { ok: true, signature, sentAt };
}
