import { createHash, randomBytes } from 'node:crypto';
import { createRequestStateCodec, type RequestStateCodec, type ServerContext } from '@modelcontextprotocol/server';
import { canonicalJson } from '../runner/digest.js';

/**
 * What a 2026-07-28 client carries between requests, since it has no session: signed by the server
 * (HMAC-SHA256 through the SDK's request-state codec, bound to the verified client), never encrypted,
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
    };

/** Where a result's conversation token goes, and where a client sends it back. */
export const CONVERSATION_META = 'wardrik/conversation';

/** A week: a call may wait for a person over a weekend, and a conversation lasts at least as long. */
const TTL_SECONDS = 7 * 24 * 3600;

/** The verified client a token is bound to: another client's token is refused even if it was stolen. */
function boundTo(ctx: ServerContext): string {
  return ctx.http?.authInfo?.clientId ?? '';
}

/** Seals and opens the tokens of one server; every node that may see a retry needs the same `key`. */
export class SealedTokens {
  private readonly codec: RequestStateCodec<Sealed>;

  constructor(key: string | undefined) {
    this.codec = createRequestStateCodec<Sealed>({
      key: key ?? randomBytes(32),
      ttlSeconds: TTL_SECONDS,
      bind: boundTo,
    });
  }

  seal(payload: Sealed, ctx: ServerContext): Promise<string> {
    return this.codec.mint(payload, ctx);
  }

  /** The SDK's `requestState.verify` hook: throws on a forged, expired or another client's token. */
  readonly verify = (state: string, ctx: ServerContext): Promise<Sealed> => this.codec.verify(state, ctx);

  /** Opens a token; undefined when it was not made by this server for this client, or has expired. */
  async open(token: string, ctx: ServerContext): Promise<Sealed | undefined> {
    try {
      return await this.codec.verify(token, ctx);
    } catch {
      return undefined;
    }
  }
}

/** The digest of a call's arguments, key order aside. */
export function argumentsDigest(args: unknown): string {
  return createHash('sha256').update(canonicalJson(args)).digest('base64url');
}
