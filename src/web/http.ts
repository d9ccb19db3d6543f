import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Timers } from '../clock.js';
import type { BodyBudget } from '../http/body-budget.js';
import { lingerAfterAnswer } from '../http/lingering-close.js';

/**
 * What every response carries: a Content-Security-Policy that runs no inline script (the page's one
 * script is a file served from here), no framing, no sniffing, no caching of what a signed-in person sees.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'same-origin',
  'cache-control': 'no-store',
});

/** The largest request body accepted: an answer's value is the biggest thing a person sends. */
export const MAX_BODY_BYTES = 1024 * 1024;
/** The largest sign-in form: a token and a name. It is read before anyone is known, so it is small. */
export const MAX_SIGN_IN_BYTES = 4 * 1024;
/** The deepest nesting accepted in a JSON body. */
export const MAX_DEPTH = 64;

/**
 * A failure the API explains itself: an HTTP status, a stable `code`, and a message saying what to do.
 * `closes`: the connection is closed after the answer (a body refused unread must not be read on).
 */
export class WebError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly closes = false,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export function send(
  response: ServerResponse,
  status: number,
  type: string,
  body: string | Buffer,
  headers: Record<string, string | string[]> = {},
): void {
  if (response.headersSent) {
    response.end();
    return;
  }
  response.writeHead(status, {
    ...SECURITY_HEADERS,
    'content-type': type,
    'content-length': Buffer.byteLength(body),
    ...headers,
  });
  response.end(body);
}

export function sendJson(
  response: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string | string[]> = {},
): void {
  send(response, status, 'application/json; charset=utf-8', JSON.stringify(value), headers);
}

/** `{ "error": { "code", "message" } }` with the error's status. */
export function sendError(response: ServerResponse, error: WebError, timers: Timers): void {
  // Refused unread: the connection is closed after the answer rather than read on to the body's end.
  if (error.closes && response.socket !== null) lingerAfterAnswer(response.socket, timers);
  sendJson(
    response,
    error.status,
    { error: { code: error.code, message: error.message } },
    error.closes ? { connection: 'close' } : {},
  );
}

/**
 * Reads the body as text, refusing more than `maxBytes` (413: by its declared length before reading any,
 * else as soon as it passes) and a body that does not arrive (408). With `budget` (a request nobody
 * vouches for yet), its bytes are counted against it while held, and a body that does not fit is refused (503).
 */
export function readText(
  request: IncomingMessage,
  timers: Timers,
  options: { readonly maxBytes?: number; readonly budget?: BodyBudget; readonly timeoutMs?: number } = {},
): Promise<string> {
  const { maxBytes = MAX_BODY_BYTES, budget, timeoutMs = 10_000 } = options;
  const declared = Number(request.headers['content-length'] ?? 0);
  if (declared > maxBytes) return Promise.reject(tooLarge(maxBytes));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const timer = timers.after(timeoutMs, () =>
      fail(
        new WebError(
          408,
          'timeout',
          `The request body did not arrive within ${timeoutMs / 1000} s; send it again.`,
          true,
        ),
      ),
    );
    const done = (): void => {
      timer.cancel();
      budget?.giveBack(size);
      request.removeAllListeners('data');
    };
    const fail = (error: Error): void => {
      done();
      request.resume();
      reject(error);
    };
    request.on('data', (chunk: Buffer) => {
      if (size + chunk.length > maxBytes) return fail(tooLarge(maxBytes));
      if (budget !== undefined && !budget.take(chunk.length)) {
        return fail(new WebError(503, 'busy', 'Too many sign-ins are under way at once; try again in a moment.', true));
      }
      size += chunk.length;
      chunks.push(chunk);
    });
    request.on('end', () => {
      done();
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
    request.on('error', fail);
  });
}

/** Reads a JSON object body: `application/json`, at most `MAX_BODY_BYTES`, nested at most `MAX_DEPTH` deep. */
export async function readJson(request: IncomingMessage, timers: Timers): Promise<Record<string, unknown>> {
  const type = String(request.headers['content-type'] ?? '');
  // Only JSON: a form post from another site (which needs no preflight) is refused before anything else.
  if (!/^application\/json\b/i.test(type)) {
    throw new WebError(
      415,
      'usage',
      `Send the body as JSON with "content-type: application/json"; got ${JSON.stringify(type || 'none')}.`,
    );
  }
  const given = parsedBody(request, MAX_BODY_BYTES);
  const text = given === undefined ? await readText(request, timers) : typeof given === 'string' ? given : undefined;
  let value: unknown = given;
  try {
    if (text !== undefined) value = text === '' ? {} : JSON.parse(text);
  } catch (error) {
    throw new WebError(
      400,
      'usage',
      `The body is not JSON (${(error as Error).message}); send an object such as {"reason":"…"}.`,
    );
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new WebError(400, 'usage', 'The body must be a JSON object, such as {"reason":"…"}.');
  if (depth(value) > MAX_DEPTH)
    throw new WebError(400, 'usage', `The body is nested more than ${MAX_DEPTH} levels deep; send a flatter value.`);
  return value as Record<string, unknown>;
}

/** Reads the sign-in form (`application/x-www-form-urlencoded`, at most `MAX_SIGN_IN_BYTES`), its bytes counted against `budget`. */
export async function readForm(request: IncomingMessage, budget: BodyBudget, timers: Timers): Promise<URLSearchParams> {
  const type = String(request.headers['content-type'] ?? '');
  if (!/^application\/x-www-form-urlencoded\b/i.test(type))
    throw new WebError(415, 'usage', 'Sign in with the form: content-type application/x-www-form-urlencoded.');
  const given = parsedBody(request, MAX_SIGN_IN_BYTES);
  if (given === undefined)
    return new URLSearchParams(await readText(request, timers, { maxBytes: MAX_SIGN_IN_BYTES, budget }));
  if (typeof given === 'string') return new URLSearchParams(given);
  // A urlencoded parser's object: only its string fields are a form's.
  const entries = Object.entries(given as object).filter(
    (entry): entry is [string, string] => typeof entry[1] === 'string',
  );
  return new URLSearchParams(entries);
}

/**
 * The body a parser in front of the inbox already read (Express's json() or urlencoded(), Nest's body
 * parser, Fastify's through a NestJS route): its text, or the value it made; `undefined` when the stream
 * is still to be read here. A stream already read with nothing left on `req.body` is refused at once: it
 * would otherwise wait for bytes that never come and answer 408 after 10 s (issue 32).
 */
function parsedBody(request: IncomingMessage, maxBytes: number): unknown {
  const body = (request as IncomingMessage & { body?: unknown }).body;
  if (body === undefined) {
    if (!request.readableEnded) return undefined;
    throw new WebError(
      400,
      'usage',
      'The request body was already read by something in front of the inbox (a body parser) that left nothing on req.body. Let the parser set req.body, or mount the inbox before it.',
    );
  }
  const text = Buffer.isBuffer(body) ? body.toString('utf8') : body;
  if (typeof text === 'string' && Buffer.byteLength(text) > maxBytes) throw tooLarge(maxBytes);
  return text;
}

/** The request's cookies by name. */
export function cookies(request: IncomingMessage): Map<string, string> {
  const found = new Map<string, string>();
  for (const part of String(request.headers.cookie ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0) found.set(part.slice(0, at).trim(), part.slice(at + 1).trim());
  }
  return found;
}

function tooLarge(maxBytes: number): WebError {
  return new WebError(
    413,
    'too_large',
    `The request body is over ${maxBytes / 1024} KB, the most read here; send a smaller one.`,
    true,
  );
}

/** How deeply a parsed JSON value nests, counted without recursion (a hostile body cannot overflow the stack). */
function depth(root: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[root, 1]];
  while (stack.length > 0) {
    const [value, level] = stack.pop()!;
    if (value === null || typeof value !== 'object') continue;
    deepest = Math.max(deepest, level);
    if (deepest > MAX_DEPTH) return deepest;
    for (const child of Object.values(value)) stack.push([child, level + 1]);
  }
  return deepest;
}
