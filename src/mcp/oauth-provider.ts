import { randomUUID } from 'node:crypto';
import type { OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/client';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/client';
import type { OAuthVault } from './oauth-vault.js';
import type { McpOAuthOptions } from './options.js';

export interface SignInProviderSettings {
  readonly options: McpOAuthOptions;
  /** Wardrik's callback URL for the authorization code grant; none for client credentials. */
  readonly redirectUrl: string | undefined;
  readonly vault: OAuthVault;
  /** A pre-registered client's secret, from the credential provider. */
  readonly clientSecret: () => Promise<string | undefined>;
  /** Shows the authorization URL to a person (an `authorize` inbox item); returns the item's id. */
  readonly askPerson: (url: URL) => Promise<string>;
}

/**
 * The MCP SDK's OAuth client provider over Wardrik's store: the SDK does discovery (protected-resource
 * and authorization-server metadata), PKCE, dynamic registration or a Client ID Metadata Document,
 * the client-credentials grant, scope step-up and refresh; this keeps what it hands over in the
 * encrypted vault, and where a person must sign in, asks one through the inbox.
 */
export class SignInProvider implements OAuthClientProvider {
  readonly clientMetadataUrl: string | undefined;

  constructor(private readonly settings: SignInProviderSettings) {
    this.clientMetadataUrl = settings.options.clientMetadataUrl;
  }

  private get machine(): boolean {
    return this.settings.options.grant === 'client_credentials';
  }

  get redirectUrl(): string | undefined {
    return this.machine ? undefined : this.settings.redirectUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    const { scope, clientSecretCredential } = this.settings.options;
    return {
      client_name: 'Wardrik',
      redirect_uris: this.redirectUrl === undefined ? [] : [this.redirectUrl],
      grant_types: this.machine ? ['client_credentials'] : ['authorization_code', 'refresh_token'],
      response_types: this.machine ? [] : ['code'],
      token_endpoint_auth_method: clientSecretCredential === undefined ? 'none' : 'client_secret_basic',
      ...(scope === undefined ? {} : { scope }),
    };
  }

  /** A fresh `state` for each authorization request: the callback finds its sign-in by it. */
  state(): string {
    return randomUUID();
  }

  /** Machine-to-machine: the client-credentials grant (the authorization code grant needs nothing here). */
  prepareTokenRequest(scope?: string): URLSearchParams | undefined {
    if (!this.machine) return undefined;
    return new URLSearchParams({ grant_type: 'client_credentials', ...(scope === undefined ? {} : { scope }) });
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    const { clientId } = this.settings.options;
    if (clientId !== undefined) {
      const secret = await this.settings.clientSecret();
      return { client_id: clientId, ...(secret === undefined ? {} : { client_secret: secret }) };
    }
    return (await this.settings.vault.read()).client as OAuthClientInformationMixed | undefined;
  }

  async saveClientInformation(client: OAuthClientInformationMixed): Promise<void> {
    if (this.settings.options.clientId !== undefined) return; // pre-registered: nothing to keep
    await this.settings.vault.update((state) => ({ ...state, client: client as Record<string, unknown> }));
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    return (await this.settings.vault.read()).tokens as OAuthTokens | undefined;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    // Signed in: the verifier, state, item and discovery of the sign-in are done with. The next sign-in
    // (the server refused these tokens) discovers again, so a server that moved to another authorization
    // server is followed there: the SDK finds this client registered with another issuer and registers anew
    // (SEP-2352). Refreshing rereads the metadata, two requests.
    await this.settings.vault.update(({ client }) => ({
      ...(client === undefined ? {} : { client }),
      tokens: tokens as Record<string, unknown>,
    }));
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    const item = await this.settings.askPerson(url);
    const sent = url.searchParams.get('state');
    await this.settings.vault.update((state) => ({ ...state, item, ...(sent === null ? {} : { state: sent }) }));
  }

  async saveCodeVerifier(verifier: string): Promise<void> {
    await this.settings.vault.update((state) => ({ ...state, verifier }));
  }

  async codeVerifier(): Promise<string> {
    const { verifier } = await this.settings.vault.read();
    if (verifier === undefined) throw new Error('no PKCE code verifier is kept for this sign-in; start it again');
    return verifier;
  }

  /** Discovery's outcome, kept so that the callback (maybe on another node) finishes against the same servers. */
  async saveDiscoveryState(discovery: OAuthDiscoveryState): Promise<void> {
    await this.settings.vault.update((state) => ({
      ...state,
      discovery: JSON.parse(JSON.stringify(discovery)) as Record<string, unknown>,
    }));
  }

  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    return (await this.settings.vault.read()).discovery as OAuthDiscoveryState | undefined;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    await this.settings.vault.update((state) => {
      if (scope === 'all') return {};
      if (scope === 'client') return { ...state, client: undefined };
      if (scope === 'tokens') return { ...state, tokens: undefined };
      if (scope === 'verifier') return { ...state, verifier: undefined };
      return { ...state, discovery: undefined };
    });
  }
}
