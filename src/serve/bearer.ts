import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  bearerAuthChallengeResponse,
  OAuthError,
  OAuthErrorCode,
  verifyBearerToken,
  type AuthInfo,
} from '@modelcontextprotocol/server';
import type { ServeAuthenticateOptions } from './options.js';

/**
 * SDK v2's bearer check on a Node request: true when the token is good (and `req.auth` is set);
 * otherwise the SDK's challenge (401 `invalid_token`, 403 `insufficient_scope`, with `WWW-Authenticate`)
 * is written to `res`. A token the verifier refuses waits for `wrong(req)` before its 401 is sent; a good
 * one waits for nothing. A verifier written for SDK v1 (throwing its `InvalidTokenError`) is refused the
 * same way: its error is read by its `invalid_token` code, not by its class.
 */
export function bearerCheck(
  options: ServeAuthenticateOptions,
  wrong: (req: IncomingMessage) => Promise<void>,
): (req: IncomingMessage, res: ServerResponse) => Promise<boolean> {
  const challenge = {
    ...(options.requiredScopes === undefined ? {} : { requiredScopes: [...options.requiredScopes] }),
    ...(options.resourceMetadataUrl === undefined ? {} : { resourceMetadataUrl: options.resourceMetadataUrl }),
  };
  return async (req, res) => {
    let auth: AuthInfo;
    try {
      auth = await verifyBearerToken(req.headers.authorization, {
        ...challenge,
        verifier: {
          verifyAccessToken: (token) =>
            options.verifier.verifyAccessToken(token).catch(async (error: unknown) => {
              const refused = asInvalidToken(error);
              if (refused === undefined) throw error;
              await wrong(req);
              throw refused;
            }),
        },
      });
    } catch (error) {
      // Written in this tick: a held answer released by the server's close must leave before its sockets go.
      const answer = bearerAuthChallengeResponse(error, challenge);
      const body =
        error instanceof OAuthError ? error : new OAuthError(OAuthErrorCode.ServerError, 'Internal Server Error');
      res.writeHead(answer.status, Object.fromEntries(answer.headers));
      res.end(JSON.stringify(body.toResponseObject()));
      return false;
    }
    (req as IncomingMessage & { auth?: AuthInfo }).auth = auth;
    return true;
  };
}

/** The verifier's refusal as SDK v2's `invalid_token` error, whichever SDK's error class it threw. */
function asInvalidToken(error: unknown): OAuthError | undefined {
  // SDK v1's errors name their code `errorCode`; v2's, `code`.
  const v1Code: unknown = (error as { errorCode?: unknown } | null)?.errorCode;
  // Guard (v1-token-refusal): a verifier written for SDK v1 refuses with a 401, counted as a wrong guess.
  if (v1Code === INVALID_TOKEN) return new OAuthError(OAuthErrorCode.InvalidToken, (error as Error).message);
  return error instanceof OAuthError && String(error.code) === INVALID_TOKEN ? error : undefined;
}

const INVALID_TOKEN: string = OAuthErrorCode.InvalidToken;
