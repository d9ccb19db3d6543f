import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ServerContext } from '@modelcontextprotocol/server';
import { canonicalJson } from '../runner/digest.js';

/**
 * What a 2026-07-28 client carries between requests, since it has no session: signed by the server
 * (HMAC-SHA256, bound to the verified client), never encrypted,
 * so nothing secret goes in. Labels are not in it: they stay in the store under the run, so a token
 * replayed from before a label was added still finds the label.
 */
export type Sealed =
  /** A conversation: the run its calls share. Sent back in `_meta['wardrik/conversation']`. */
  | { readonly kind: 'conversation'; readonly run: string; readonly agent: string }
  /** A call waiting for a person (an `input_required` result's `requestState`). */
  | {
      readonly kind: 'call';
      readonly run: string;
      readonly call: string;
      readonly agent: string;
      /** The served tool's `toolset/tool` and its arguments' digest: a retry must be the same call. */
      readonly tool: string;
      readonly args: string;
      readonly inbox?: string;
    }
  /** A task of the tasks extension (its `taskId`): the call it runs, and when it was created (ms). */
  | { readonly kind: 'task'; readonly run: string; readonly call: string; readonly agent: string; readonly at: number };

/** A week: a call may wait for a person over a weekend, and a conversation lasts at least as long. */
const TTL_SECONDS = 7 * 24 * 3600;

/** The verified client a token is bound to: another client's token is refused even if it was stolen. */
function boundTo(ctx: ServerContext): string {
  return ctx.http?.authInfo?.clientId ?? '';
}

/** A token: `w1.` + the base64url JSON envelope + `.` + the base64url HMAC-SHA256 of both. */
const PREFIX = 'w1.';

/** What a token holds: the payload, when it expires (seconds), and a tag of the client it is bound to. */
interface Envelope {
  readonly p: Sealed;
  readonly exp: number;
  readonly b: string;
}

/**
 * Seals and opens the tokens of one server; every node that may see a retry needs the same `key`.
 * HMAC-SHA256 with node:crypto, in the call: a token is made for every served result, and the Web Crypto
 * HMAC the SDK's request-state codec uses (two asynchronous signs a token) was 40% of a served call's CPU.
 */
export class SealedTokens {
  private readonly key: Buffer;
  // What an HMAC already computed, since one was most of a served call's CPU after the tool's own work
  // (each is a pure function of the key, so remembering changes no answer): clients' tags, tokens
  // sealed by envelope, and tokens whose MAC was checked (expiry and client are still checked each time).
  private readonly tags = new Map<string, string>();
  private readonly sealed = new Map<string, string>();
  private readonly verified = new Map<string, Envelope>();

  constructor(key: string | undefined) {
    this.key = key === undefined ? randomBytes(32) : Buffer.from(key, 'utf8');
  }

  seal(payload: Sealed, ctx: ServerContext): Promise<string> {
    const envelope: Envelope = { p: payload, exp: Math.floor(Date.now() / 1000) + TTL_SECONDS, b: this.bind(ctx) };
    const json = JSON.stringify(envelope);
    // The same envelope in the same second makes the same token: a connection's calls share one.
    let token = this.sealed.get(json);
    if (token === undefined) {
      const body = Buffer.from(json, 'utf8').toString('base64url');
      token = `${PREFIX}${body}.${this.mac(PREFIX + body).toString('base64url')}`;
      remember(this.sealed, json, token);
      remember(this.verified, token, envelope);
    }
    return Promise.resolve(token);
  }

  /** The SDK's `requestState.verify` hook: throws on a forged, expired or another client's token. */
  readonly verify = (state: string, ctx: ServerContext): Promise<Sealed> => {
    try {
      return Promise.resolve(this.opened(state, ctx));
    } catch (error) {
      return Promise.reject(error as Error);
    }
  };

  /** Opens a token; undefined when it was not made by this server for this client, or has expired. */
  open(token: string, ctx: ServerContext): Promise<Sealed | undefined> {
    try {
      return Promise.resolve(this.opened(token, ctx));
    } catch {
      return Promise.resolve(undefined);
    }
  }

  private opened(token: string, ctx: ServerContext): Sealed {
    if (typeof token !== 'string' || token.length > MAX_TOKEN || !token.startsWith(PREFIX))
      throw new Error('The token is malformed.');
    const dot = token.lastIndexOf('.');
    if (dot <= PREFIX.length) throw new Error('The token is malformed.');
    const envelope = this.verified.get(token) ?? this.checked(token, dot);
    if (!(envelope.exp >= Math.floor(Date.now() / 1000))) throw new Error('The token has expired.');
    const tag = Buffer.from(this.bind(ctx));
    const given = Buffer.from(String(envelope.b));
    if (given.length !== tag.length || !timingSafeEqual(given, tag)) throw new Error("The token is another client's.");
    return envelope.p;
  }

  /** The envelope of a token whose MAC is this server's (remembered: a client sends its token back on every call). */
  private checked(token: string, dot: number): Envelope {
    const body = token.slice(PREFIX.length, dot);
    const written = token.slice(dot + 1);
    // Guard (token-one-spelling): the MAC is compared as written; decoded, padding, skipped characters and its last digit's spare bits would give one token many spellings.
    const mac = Buffer.from(written, 'utf8');
    const expected = Buffer.from(this.mac(PREFIX + body).toString('base64url'), 'utf8');
    if (mac.length !== expected.length || !timingSafeEqual(mac, expected)) throw new Error('The token is forged.');
    const envelope = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Envelope;
    remember(this.verified, token, envelope);
    return envelope;
  }

  private mac(text: string): Buffer {
    return createHmac('sha256', this.key).update(text, 'utf8').digest();
  }

  /** The client's tag: a keyed hash of its verified id, so a token names no client in the clear. */
  private bind(ctx: ServerContext): string {
    const client = boundTo(ctx);
    let tag = this.tags.get(client);
    if (tag === undefined) {
      tag = this.mac(`bind:${client}`).subarray(0, 16).toString('base64url');
      remember(this.tags, client, tag);
    }
    return tag;
  }
}

/** How many of each a `SealedTokens` remembers: enough for the clients of a busy second, bounded for memory. */
const REMEMBERED = 512;

/** Remembers `value` under `key`, forgetting the oldest entry past `REMEMBERED`. */
function remember<K, V>(memo: Map<K, V>, key: K, value: V): void {
  if (memo.size >= REMEMBERED) memo.delete(memo.keys().next().value as K);
  memo.set(key, value);
}

/** A token is a few hundred bytes; anything much longer is not one of ours. */
const MAX_TOKEN = 16 * 1024;

/** The digest of a call's arguments, key order aside. */
export function argumentsDigest(args: unknown): string {
  return createHash('sha256').update(canonicalJson(args)).digest('base64url');
}
