import {
  ForbiddenException,
  Injectable,
  UnauthorizedException,
  type CanActivate,
  type ExecutionContext,
} from '@nestjs/common';

/** Who holds which token: in a real app, the app's own sign-in (sessions, JWTs, an SSO proxy). */
const PEOPLE: Readonly<Record<string, { readonly username: string; readonly roles: readonly string[] }>> = {
  'agent-token': { username: 'support-bot', roles: ['agent'] },
  'bob-token': { username: 'bob', roles: ['support'] },
  'carol-token': { username: 'carol', roles: ['support', 'approver'] },
};

/**
 * The app's guard in front of both doors: a known bearer token gets in as its person (request.user); only
 * approvers may approve, deny or answer in the inbox.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<{
      headers: Record<string, string | undefined>;
      method: string;
      url: string;
      user?: unknown;
    }>();
    const token = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1];
    const person = token === undefined ? undefined : PEOPLE[token];
    if (person === undefined) throw new UnauthorizedException('Send a bearer token of this app.');
    const answering = request.method === 'POST' && /\/api\/items\/[^/]+\/(approve|deny|answer)$/.test(request.url);
    if (answering && !person.roles.includes('approver')) throw new ForbiddenException('Only approvers answer.');
    request.user = person;
    return true;
  }
}
