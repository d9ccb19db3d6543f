import { ConfigurationError } from '../errors.js';
import { readPeopleFile, type InboxPersonOptions } from '../web/people.js';
import type { CommandContext } from './context.js';
import { CliError, ExitCode } from './errors.js';

export interface WebCommandOptions {
  readonly host: string;
  readonly port: number;
  readonly publicUrl?: string;
  readonly webhookUrl?: string;
  readonly allowedHost: readonly string[];
  readonly trustProxy?: string;
  readonly people?: string;
}

/**
 * `wardrik web [--host H] [--port P] [--public-url URL] [--webhook-url URL] [--allowed-host H]…
 * [--trust-proxy HEADER] [--people FILE]`: serves the inbox page and its API on the store until SIGINT
 * or SIGTERM. Like `wardrik approve`, it offers no tools: an approval is recorded and the node that
 * offers the tool runs the call at its next recovery.
 */
export async function web(
  ctx: CommandContext,
  options: WebCommandOptions,
  stopped: Promise<unknown> = signalled(),
): Promise<void> {
  const secret = ctx.io.env.WARDRIK_WEBHOOK_SECRET;
  if (options.webhookUrl !== undefined && (secret === undefined || secret === '')) {
    throw new CliError(
      ExitCode.usage,
      '--webhook-url needs its signing secret in WARDRIK_WEBHOOK_SECRET (at least 16 characters; not on the command line, where other users can read it).',
    );
  }
  await ctx.withWardrik(async (wardrik) => {
    let inbox;
    try {
      inbox = wardrik.inboxWeb({
        ...(options.publicUrl === undefined ? {} : { publicUrl: options.publicUrl }),
        ...(options.webhookUrl === undefined
          ? {}
          : { notify: { webhook: { url: options.webhookUrl, secret: secret! } } }),
        // Each person is checked by inboxWeb, as people given in code are.
        ...(options.people === undefined ? {} : { people: readPeopleFile(options.people) as InboxPersonOptions[] }),
        http: {
          ...(options.allowedHost.length === 0 ? {} : { allowedHosts: options.allowedHost }),
          ...(options.trustProxy === undefined ? {} : { trustProxy: options.trustProxy }),
        },
      });
    } catch (error) {
      if (error instanceof ConfigurationError)
        throw new CliError(ExitCode.usage, error.message.replace(/^inboxWeb: /, ''), { cause: error });
      throw error;
    }
    const warnings = wardrik.events$.subscribe((event) => {
      if (event.type === 'warning') ctx.io.err(`wardrik web: ${event.message}\n`);
    });
    let url: string;
    try {
      ({ url } = await inbox.listen({ host: options.host, port: options.port }));
    } catch (error) {
      warnings.unsubscribe();
      const code = (error as { code?: string }).code;
      const why =
        code === 'EADDRINUSE'
          ? 'the port is taken; pass another --port'
          : code === 'EADDRNOTAVAIL'
            ? 'this machine has no such address; pass another --host'
            : (error as Error).message;
      throw new CliError(ExitCode.usage, `Cannot serve the inbox on ${options.host}:${options.port}: ${why}.`, {
        cause: error,
      });
    }
    const token = inbox.tokenGenerated ? inbox.token : undefined;
    const people = inbox.people;
    ctx.print(
      {
        url,
        store: ctx.storeName,
        signIn: people > 0 ? 'people' : 'shared-token',
        ...(people > 0 ? { people } : {}),
        ...(token === undefined ? {} : { token }),
      },
      () => {
        const lines = [`The Wardrik inbox is at ${url} (store ${ctx.storeName}). Stop it with Ctrl-C.`];
        if (people > 0)
          lines.push(
            `${people} named ${people === 1 ? 'person signs' : 'people sign'} in, each with their own token; answers are recorded under their names.`,
          );
        else {
          if (token !== undefined)
            lines.push(
              `Sign-in token, shown this once: ${token}`,
              'Set WARDRIK_WEB_TOKEN to choose your own, kept across restarts.',
            );
          else lines.push('Sign in with the token in WARDRIK_WEB_TOKEN.');
          lines.push(
            'One shared token, for one person: whoever has it types the name recorded with their answers. For several people, give each a token of their own with --people FILE.',
          );
        }
        if (!/^(127\.|\[::1\]|localhost)/.test(new URL(url).hostname) && !url.includes('[::1]')) {
          lines.push(
            'It serves plain HTTP: put it behind a TLS proxy before people sign in over a network, and pass --public-url.',
          );
        }
        return lines.join('\n');
      },
    );
    await stopped;
    warnings.unsubscribe();
  });
}

/** Resolves on SIGINT or SIGTERM, the ways a server is asked to stop. */
function signalled(): Promise<string> {
  return new Promise((resolve) => {
    const stop = (signal: string): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve(signal);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
