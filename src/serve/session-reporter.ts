import type { ServerContext, ServerNotification } from '@modelcontextprotocol/server';
import type { CallReporter, LogLevel } from '../tools/context.js';

type Extra = ServerContext;

/** What a reporter needs of its session: whether the client wants a log level, and a way to notify it. */
export interface ReportingSession {
  logs(level: LogLevel): boolean;
  notify(extra: Extra, notification: ServerNotification): void;
}

/** Where a call's `ctx.progress` and `ctx.log` go: its own request's stream, when the client asked for them. */
export class SessionReporter implements CallReporter {
  constructor(
    private readonly session: ReportingSession,
    private readonly extra: Extra,
    private readonly progressToken: string | number | undefined,
    private readonly logger: string,
  ) {}

  progress(progress: number, total: number | undefined, message: string | undefined): void {
    const progressToken = this.progressToken;
    if (progressToken === undefined) return;
    this.session.notify(this.extra, {
      method: 'notifications/progress',
      params: {
        progressToken,
        progress,
        ...(total === undefined ? {} : { total }),
        ...(message === undefined ? {} : { message }),
      },
    });
  }

  log(level: LogLevel, data: unknown): void {
    if (!this.session.logs(level)) return;
    this.session.notify(this.extra, { method: 'notifications/message', params: { level, logger: this.logger, data } });
  }
}
