/**
 * Resolves a credential's name to its secret when a connection starts, each time it starts, so a
 * rotated secret is picked up on the next reconnect. Register your own under `Tokens.Credentials`
 * (a vault, a per-tenant lookup); Wardrik never stores what it returns, nor puts it in events or errors.
 */
export interface CredentialProvider {
  /** The secret named `name`, or `undefined` when there is none (the connection then fails and is retried). */
  resolve(name: string, context: CredentialContext): string | undefined | Promise<string | undefined>;
}

/** Who asks for a credential. */
export interface CredentialContext {
  /** The hub's name. */
  readonly hub: string;
  /** The server's name. */
  readonly server: string;
}

/** The default provider: the environment variable of that name. */
export class EnvCredentialProvider implements CredentialProvider {
  constructor(private readonly env: Readonly<Record<string, string | undefined>> = process.env) {}

  resolve(name: string): string | undefined {
    const value = this.env[name];
    return value === undefined || value === '' ? undefined : value;
  }
}
