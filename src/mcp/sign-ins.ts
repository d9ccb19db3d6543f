import { randomUUID } from 'node:crypto';
import { auth } from '@modelcontextprotocol/client';
import type { Clock } from '../clock.js';
import { EgressRefusedError, NotFoundError } from '../errors.js';
import type { InboxRecord, McpServerRecords, Store } from '../store/store.js';
import type { EventBus } from '../telemetry/event-bus.js';
import type { CredentialProvider } from './credentials.js';
import type { EgressCheck } from './egress.js';
import { SignInProvider } from './oauth-provider.js';
import { OAuthVault } from './oauth-vault.js';
import type { McpOAuthOptions } from './options.js';
import { pinnedFetch } from './pinned-fetch.js';

const MAX_SIGN_INS = 3;
const SIGN_IN_WINDOW_MS = 10 * 60_000;

export interface SignInSettings {
  readonly hub: string;
  readonly store: Store & McpServerRecords;
  readonly events: EventBus;
  readonly clock: Clock;
  readonly credentials: CredentialProvider;
  /** The credential whose secret the tokens are encrypted with. */
  readonly keyCredential: string;
  /** Wardrik's callback URL, where a person's browser comes back with the authorization code. */
  readonly redirectUrl: string | undefined;
}

/** One server as a sign-in needs it. */
export interface SignInServer {
  readonly name: string;
  readonly url: string;
  readonly oauth: McpOAuthOptions;
  /** Added at runtime: every metadata, authorization and token URL passes the egress check. */
  readonly runtime: boolean;
}

/**
 * OAuth for a hub's remote servers: a provider per connection, the `authorize` inbox item when a person
 * must sign in, and the callback that completes it (`complete`), on whichever node the browser reaches.
 */
export class SignIns {
  /** When each server last asked a person to sign in, in this process. */
  private readonly asked = new Map<string, number[]>();

  constructor(
    private readonly settings: SignInSettings,
    private readonly check: EgressCheck | undefined,
  ) {}

  /**
   * The provider for a connection attempt. Throws while a person has yet to sign in (so retries do not
   * pile up inbox items), and when one refused to.
   */
  async providerFor(server: SignInServer): Promise<SignInProvider> {
    const provider = this.provider(server);
    const state = await this.vault(server.name).read();
    if (state.item !== undefined && state.tokens === undefined) {
      const item = await this.settings.store.getInboxItem(state.item);
      if (item?.status === 'pending')
        throw new Error(`it waits for a person to sign in (inbox item ${state.item}: open its URL)`);
      if (item?.status === 'denied') {
        throw new Error(
          `a person refused to sign in (inbox item ${state.item}${item.by === undefined ? '' : `, by ${item.by}`}); remove and add the server again to ask anew`,
        );
      }
    }
    return provider;
  }

  /**
   * Completes a sign-in from the URL the person's browser was sent back to (`?code=…&state=…&iss=…`): the
   * code is exchanged for tokens (kept encrypted in the store) and the `authorize` item is answered.
   * Returns the server's name. Throws `NotFoundError` when no sign-in waits for that state.
   */
  async complete(callback: URL, servers: readonly SignInServer[], by?: string): Promise<string> {
    const state = callback.searchParams.get('state');
    const code = callback.searchParams.get('code');
    const refused = callback.searchParams.get('error');
    let found: SignInServer | undefined;
    let item: string | undefined;
    for (const server of servers) {
      const kept = await this.vault(server.name).read();
      if (state !== null && kept.state === state) {
        found = server;
        item = kept.item;
        break;
      }
    }
    if (found === undefined || item === undefined) {
      throw new NotFoundError(
        `No sign-in of MCP hub "${this.settings.hub}" waits for this callback (state ${JSON.stringify(state)}); it may be done already, or started on a store this node does not share.`,
      );
    }
    if (refused !== null || code === null) {
      await this.answer(item, 'denied', by);
      throw new Error(
        `The sign-in to MCP server "${found.name}" was refused by the authorization server: ${refused ?? 'no code came back'}.`,
      );
    }
    const fetcher = pinnedFetch(found.runtime ? this.check : undefined);
    try {
      // `iss` (RFC 9207): the SDK checks it names the authorization server the person was sent to.
      const iss = callback.searchParams.get('iss');
      const result = await auth(this.provider(found), {
        serverUrl: found.url,
        authorizationCode: code,
        ...(iss === null ? {} : { iss }),
        fetchFn: fetcher.fetch,
      });
      if (result !== 'AUTHORIZED')
        throw new Error(`The sign-in to MCP server "${found.name}" did not complete; sign in again.`);
    } finally {
      fetcher.close();
    }
    await this.answer(item, 'answered', by);
    return found.name;
  }

  private provider(server: SignInServer): SignInProvider {
    const { credentials, hub, redirectUrl } = this.settings;
    return new SignInProvider({
      options: server.oauth,
      redirectUrl,
      vault: this.vault(server.name),
      clientSecret: async () =>
        server.oauth.clientSecretCredential === undefined
          ? undefined
          : await credentials.resolve(server.oauth.clientSecretCredential, { hub, server: server.name }),
      askPerson: (url) => this.askPerson(server, url),
    });
  }

  private vault(server: string): OAuthVault {
    const { store, hub, credentials, keyCredential, clock } = this.settings;
    const secret = async (): Promise<string> => {
      const value = await credentials.resolve(keyCredential, { hub, server });
      if (value === undefined || value.length < 16) {
        throw new Error(
          `OAuth tokens are kept encrypted with the secret named "${keyCredential}", which the credential provider has no value of at least 16 characters for; set it (the same on every node)`,
        );
      }
      return value;
    };
    return new OAuthVault(store, hub, server, secret, () => clock.now());
  }

  /**
   * The `authorize` inbox item: the URL a person opens to sign in. A server that keeps asking (for ever
   * more scope) is asked for at most `MAX_SIGN_INS` sign-ins within `SIGN_IN_WINDOW_MS`.
   */
  private async askPerson(server: SignInServer, url: URL): Promise<string> {
    const now = this.settings.clock.now();
    const recent = (this.asked.get(server.name) ?? []).filter((at) => now - at < SIGN_IN_WINDOW_MS);
    if (recent.length >= MAX_SIGN_INS) {
      throw new Error(
        `MCP server "${server.name}" asked for a sign-in ${recent.length} times within ${SIGN_IN_WINDOW_MS / 60_000} minutes and still refuses; Wardrik asks no person again until that window has passed (a server that keeps asking for more access is misconfigured)`,
      );
    }
    this.asked.set(server.name, [...recent, now]);
    if (server.runtime && this.check !== undefined) {
      const verdict = await this.check(url);
      if (!verdict.ok)
        throw new EgressRefusedError(
          `The authorization URL of MCP server "${server.name}" is refused: ${verdict.reason}`,
        );
    }
    const { hub, store, clock, events } = this.settings;
    const id = randomUUID();
    const item: InboxRecord = {
      id,
      kind: 'authorize',
      status: 'pending',
      agent: `mcp:${hub}`,
      run: `mcp:${hub}/${server.name}`,
      call: id,
      tool: `${server.name}/(sign-in)`,
      arguments: null,
      digest: '',
      labels: [],
      reason: `MCP server "${server.name}" needs a person to sign in: open ${url.href}`,
      createdAt: clock.now(),
      detail: { hub, server: server.name, url: url.href },
    };
    await store.putInboxItem(item);
    events.emit({
      type: 'warning',
      message: `MCP server "${server.name}" of hub "${hub}" needs a person to sign in; inbox item ${id} has the URL to open.`,
    });
    return id;
  }

  private async answer(id: string, status: 'answered' | 'denied', by: string | undefined): Promise<void> {
    const item = await this.settings.store.getInboxItem(id);
    if (item?.status !== 'pending') return;
    await this.settings.store.updateInboxItem(
      { ...item, status, answeredAt: this.settings.clock.now(), by: by ?? 'sign-in callback' },
      'pending',
    );
  }
}
