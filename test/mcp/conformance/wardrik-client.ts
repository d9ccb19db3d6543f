// The MCP client under test for the conformance suite's client scenarios: Wardrik's hub, connected to
// the scenario's server (its URL is the last argument), calling each tool once through the runner. A
// "person" answers what reaches the inbox: each question is accepted with no fields, so the schema's
// defaults fill it (SEP-1034); each sign-in URL is opened (the suite's authorization server redirects at
// once) and the redirect handed to the hub's sign-in callback. Exits 0 when every call was answered.
import 'reflect-metadata';
import { Wardrik, type McpOAuthOptions } from '../../../src/index.js';
import { eventually } from '../../eventually.js';

const url = process.argv[process.argv.length - 1]!;
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as {
  client_id?: string;
  client_secret?: string;
};
process.env.WARDRIK_OAUTH_KEY = 'conformance-only-key-0123456789';
if (context.client_secret !== undefined) process.env.CONFORMANCE_CLIENT_SECRET = context.client_secret;
const oauth: McpOAuthOptions | undefined = scenario.startsWith('auth/')
  ? {
      clientMetadataUrl: 'https://conformance-test.local/client-metadata.json',
      ...(context.client_id === undefined ? {} : { clientId: context.client_id }),
      ...(context.client_secret === undefined ? {} : { clientSecretCredential: 'CONFORMANCE_CLIENT_SECRET' }),
      ...(scenario.includes('client-credentials') ? { grant: 'client_credentials' as const } : {}),
    }
  : undefined;
const wardrik = await Wardrik.create({
  store: 'memory:',
  recoverMs: Infinity,
  mcp: {
    servers: {
      c: { transport: { http: { url } }, gated: false, timeoutMs: 20_000, ...(oauth === undefined ? {} : { oauth }) },
    },
    oauth: { redirectUrl: 'http://127.0.0.1:9/oauth/callback' },
    waitMs: 10_000,
    reconcileMs: Infinity,
    backoff: { baseDelayMs: 100, maxDelayMs: 1_000 },
  },
});
let calling = true;
let signInRefused = false;
/** Sign-ins already opened: a person opens each once (a callback the hub refuses leaves its item pending). */
const opened = new Set<string>();
const person = (async () => {
  while (calling) {
    for (const item of await wardrik.inbox.list()) {
      if (item.kind === 'authorize' && opened.has(item.id)) continue;
      if (item.kind === 'authorize') opened.add(item.id);
      if (item.kind === 'question')
        await wardrik.inbox.answer(item.id, { action: 'accept', content: {} }, { by: 'conformance' }).catch(() => {});
      if (item.kind === 'authorize') {
        const signIn = await fetch((item.detail as { url: string }).url, { redirect: 'manual' });
        const back = signIn.headers.get('location');
        if (back !== null)
          await wardrik
            .mcp()
            .completeSignIn(back, { by: 'conformance' })
            .catch((error: Error) => {
              // Refused (an issuer check): the server stays signed out, so nothing is waited for.
              signInRefused = true;
              process.stderr.write(`sign-in: ${error.message}\n`);
            });
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
})();
/** Resolves once the server is connected, or after `ms` (the caller then sees it is not). */
const connected = (ms: number): Promise<unknown> =>
  eventually('the server to connect', () => signInRefused || wardrik.mcp().status()[0]?.state === 'connected', {
    timeoutMs: ms,
  }).catch(() => undefined);
/**
 * Calls Wardrik refuses by design in some scenarios, where the suite's checks are about something else
 * and pass: such a call must be refused (an error answer), and one that runs counts as a failure.
 * - sep-2322-client-request-state: a 2026-07-28 result without `resultType` breaks a MUST; the SDK
 *   rejects it, and Wardrik answers the call as not valid MCP.
 * - json-schema-ref-no-deref: the input schema `$ref`s an outside URL, which Wardrik never fetches (the
 *   check is that it does not), so the arguments cannot be checked and the tool never runs.
 */
const REFUSED: Record<string, readonly string[]> = {
  'sep-2322-client-request-state': ['c__test_mrtr_no_result_type'],
  'json-schema-ref-no-deref': ['c__lookup_user'],
};
/**
 * Arguments a scenario needs that the ones made from a schema's property types cannot be:
 * json-schema-2020-12-preservation has the schema its focal tool was listed with echoed back, as the model
 * saw it, and that tool called with arguments its if/then/else and anyOf accept.
 */
function argumentsFor(name: string): Record<string, unknown> | undefined {
  if (scenario !== 'json-schema-2020-12-preservation') return undefined;
  if (name === 'c__json_schema_echo')
    return {
      schema: wardrik.tools(['c/*']).find((entry) => entry.name === 'c__json_schema_2020_12_tool')?.inputSchema,
    };
  if (name === 'c__json_schema_2020_12_tool') return { name: 'Ada', contactMethod: 'email', email: 'ada@example.com' };
  return undefined;
}
let failed = 0;
try {
  // Not connected in time is reported just below, as a failure of the scenario.
  await connected(20_000);
  const status = wardrik.mcp().status()[0];
  if (status?.state !== 'connected') {
    process.stderr.write(`not connected: ${JSON.stringify(status)}\n`);
    failed++;
  }
  for (const entry of wardrik.tools(['c/*'])) {
    const schema = entry.inputSchema as { properties?: Record<string, { type?: string }>; required?: string[] };
    // SEP-2243's header scenario checks values that need base64 in a header, and arguments left out.
    const headers = scenario === 'http-custom-headers';
    const omitted = (key: string): boolean =>
      headers && entry.name.includes('null') && !(schema.required ?? []).includes(key);
    const args =
      argumentsFor(entry.name) ??
      Object.fromEntries(
        Object.entries(schema.properties ?? {})
          .filter(([key]) => !omitted(key))
          .map(([key, property]) => [
            key,
            property.type === 'string' ? (headers ? 'Grüße aus Köln' : 'x') : property.type === 'boolean' ? true : 1,
          ]),
      );
    // A call refused for want of a (wider) sign-in did not run: once the person signed in, it is made again.
    for (let attempt = 1; ; attempt++) {
      const answer = await wardrik.runner.run({
        agent: 'conformance',
        run: `r-${entry.name}-${attempt}`,
        call: { id: entry.name, name: entry.name, arguments: args },
      });
      process.stdout.write(`${entry.name}: ${JSON.stringify(answer)}\n`);
      if (REFUSED[scenario]?.includes(entry.name) === true) {
        if (answer.status !== 'error') failed++;
        break;
      }
      if (answer.status === 'ok') break;
      if (attempt === 3 || answer.status !== 'error' || !answer.message.includes('asks for a sign-in')) {
        failed++;
        break;
      }
      await connected(10_000);
    }
  }
} finally {
  calling = false;
  await person;
  await wardrik.close();
}
process.exit(failed === 0 ? 0 : 1);
