import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { McpServerRecords, Store } from '../store/store.js';

/**
 * What Wardrik keeps of one server's OAuth sign-in: its tokens, its client registration (dynamic), and
 * while a person signs in, the PKCE verifier, the `state` sent and the inbox item they answer.
 */
export interface OAuthState {
  readonly tokens?: Record<string, unknown>;
  readonly client?: Record<string, unknown>;
  /** Where discovery found the authorization server and its metadata. */
  readonly discovery?: Record<string, unknown>;
  readonly verifier?: string;
  readonly state?: string;
  /** The pending `authorize` inbox item. */
  readonly item?: string;
}

/** Where and how it is kept, per hub: the store's runtime-server records under `<hub>/oauth`, one per server. */
export function oauthHub(hub: string): string {
  return `${hub}/oauth`;
}

/**
 * One server's OAuth state in the store, encrypted (AES-256-GCM) with a key derived from a secret the
 * credential provider gives: never in plain text, and shared by every node on the store that has the
 * same secret. A record this secret cannot open reads as no state (a person signs in again).
 */
export class OAuthVault {
  constructor(
    private readonly store: Store & McpServerRecords,
    private readonly hub: string,
    private readonly server: string,
    private readonly secret: () => Promise<string>,
    private readonly now: () => number,
  ) {}

  async read(): Promise<OAuthState> {
    const record = (await this.store.listMcpServers(oauthHub(this.hub))).find((r) => r.name === this.server);
    if (record === undefined) return {};
    return openSealed(record.options, await this.key()) ?? {};
  }

  /** Replaces what is kept with `change` applied to what is kept now. */
  async update(change: (state: OAuthState) => OAuthState): Promise<OAuthState> {
    const next = change(await this.read());
    await this.store.putMcpServer({
      hub: oauthHub(this.hub),
      name: this.server,
      options: seal(next, await this.key()),
      updatedAt: this.now(),
    });
    return next;
  }

  private async key(): Promise<Buffer> {
    return createHash('sha256')
      .update(`wardrik oauth\u0000${await this.secret()}`)
      .digest();
  }
}

function seal(state: OAuthState, key: Buffer): object {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const data = Buffer.concat([cipher.update(JSON.stringify(state), 'utf8'), cipher.final()]);
  return {
    v: 1,
    iv: iv.toString('base64'),
    tag: cipher.getAuthTag().toString('base64'),
    data: data.toString('base64'),
  };
}

function openSealed(sealed: unknown, key: Buffer): OAuthState | undefined {
  const { v, iv, tag, data } = (sealed ?? {}) as Record<string, unknown>;
  if (v !== 1 || typeof iv !== 'string' || typeof tag !== 'string' || typeof data !== 'string') return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    const text = Buffer.concat([decipher.update(Buffer.from(data, 'base64')), decipher.final()]).toString('utf8');
    const state = JSON.parse(text) as unknown;
    return state !== null && typeof state === 'object' && !Array.isArray(state) ? (state as OAuthState) : undefined;
  } catch {
    return undefined; // another key, or tampered with
  }
}
