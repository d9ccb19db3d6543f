import { createHmac, timingSafeEqual } from 'node:crypto';
import { ConfigurationError } from '../errors.js';
import { numberOption } from '../options.js';

/**
 * Standard Webhooks signing (standardwebhooks.com, spec 1.0): each message carries `webhook-id` (the
 * same on every retry), `webhook-timestamp` (this attempt, whole seconds since the epoch) and
 * `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">`. Signing the id and the time with
 * the body is what lets a receiver refuse a captured message sent again later, or twice.
 */

/** How far a message's `webhook-timestamp` may be from the receiver's clock, either way, unless told: 5 minutes. */
export const WEBHOOK_TOLERANCE_MS = 5 * 60_000;
const SECRET_PREFIX = 'whsec_';
/** The spec's bounds for a `whsec_` secret's key, in bytes. */
const KEY_BYTES = { min: 24, max: 64 };
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** A `webhook-timestamp` longer than this is no time in seconds: refused before it is read as a number. */
const TIMESTAMP_DIGITS = 12;

/**
 * The HMAC key a secret stands for: a Standard Webhooks secret (`whsec_` and the base64 of 24 to 64 random
 * bytes) is those bytes; any other string is its own UTF-8 bytes. Throws a ConfigurationError naming
 * `option` when a `whsec_` secret is not base64 or not 24 to 64 bytes.
 */
export function webhookKey(secret: string, option: string): Buffer {
  if (!secret.startsWith(SECRET_PREFIX)) return Buffer.from(secret, 'utf8');
  const text = secret.slice(SECRET_PREFIX.length);
  const key = BASE64.test(text) ? Buffer.from(text, 'base64') : undefined;
  if (key === undefined || key.length < KEY_BYTES.min || key.length > KEY_BYTES.max) {
    throw new ConfigurationError(
      `${option} starts with "whsec_", so it must be a Standard Webhooks secret: "whsec_" and the base64 of ${KEY_BYTES.min} to ${KEY_BYTES.max} random bytes` +
        `${key === undefined ? ', but what follows is not base64' : `, but it holds ${key.length} bytes`}. Make one with: echo "whsec_$(openssl rand -base64 32)"`,
    );
  }
  return key;
}

/** The `webhook-signature` value of one message: `v1,` and the base64 HMAC-SHA256 of `id.timestamp.body`. */
export function webhookSignature(
  key: Buffer,
  id: string,
  timestamp: number | string,
  body: string | Uint8Array,
): string {
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest('base64')}`;
}

/** Request headers as Node (`request.headers`) or fetch (`request.headers`, a `Headers`) gives them. */
export type WebhookHeaders = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

/** How `verifyWebhook` checks the time. */
export interface VerifyWebhookOptions {
  /** How far `webhook-timestamp` may be from now, either way: 300 000 ms (5 minutes) unless set. */
  readonly toleranceMs?: number;
  /** Now, in milliseconds since the epoch: `Date.now()` unless given. */
  readonly now?: () => number;
}

/** What `verifyWebhook` found: the message's id and send time, or why it is refused. */
export type WebhookVerification =
  { readonly ok: true; readonly id: string; readonly sentAt: number } | { readonly ok: false; readonly reason: string };

/**
 * Checks a message from `inboxWeb` notifications (or any Standard Webhooks sender) before it is trusted:
 * one of its `v1` signatures is the HMAC-SHA256 of `id.timestamp.body` under `secret`, compared in
 * constant time, and `webhook-timestamp` is within `toleranceMs` of now. `body` is the raw body as
 * received, not JSON parsed and written again. A repeated `webhook-id` is the receiver's to refuse: it
 * remembers each accepted id until `sentAt + toleranceMs`, after which the time check refuses it.
 */
export function verifyWebhook(
  secret: string,
  headers: WebhookHeaders,
  body: string | Uint8Array,
  options: VerifyWebhookOptions = {},
): WebhookVerification {
  if (typeof secret !== 'string' || secret === '')
    throw new ConfigurationError(
      "verifyWebhook: secret must be the webhook's signing secret, the same string as notify.webhook.secret.",
    );
  const key = webhookKey(secret, 'verifyWebhook: secret');
  const toleranceMs = numberOption('verifyWebhook: toleranceMs', options.toleranceMs, WEBHOOK_TOLERANCE_MS, {
    min: 0,
    unit: 'milliseconds',
  });
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (id === undefined || timestamp === undefined || signatures === undefined) {
    return { ok: false, reason: 'the webhook-id, webhook-timestamp and webhook-signature headers must each come once' };
  }
  if (timestamp.length > TIMESTAMP_DIGITS || !/^\d+$/.test(timestamp))
    return { ok: false, reason: 'webhook-timestamp is not whole seconds since the epoch' };
  const sentAt = Number(timestamp) * 1_000;
  const offMs = sentAt - (options.now ?? Date.now)();
  if (Math.abs(offMs) > toleranceMs) {
    return {
      ok: false,
      reason: `webhook-timestamp is ${Math.round(Math.abs(offMs) / 1_000)} s ${offMs < 0 ? 'old' : 'ahead'}, outside the tolerance of ${toleranceMs / 1_000} s: a message sent again later, or a clock that is off`,
    };
  }
  // Over the header as sent, as the scheme signs it, and compared as text: `00<ts>`, trailing junk or a
  // base64url spelling is not the same message to a receiver that removes repeats by header.
  const expected = Buffer.from(webhookSignature(key, id, timestamp, body));
  const matches = signatures.split(' ').some((signature) => {
    const given = Buffer.from(signature);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matches)
    return {
      ok: false,
      reason:
        'no v1 signature in webhook-signature matches: another secret, or a changed body (check the raw body, not JSON parsed and written again)',
    };
  return { ok: true, id, sentAt };
}

/** One header's value, when it came exactly once. */
function header(headers: WebhookHeaders, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) return typeof value === 'string' ? value : undefined;
  }
  return undefined;
}
