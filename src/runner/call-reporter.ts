import type { EventBus } from '../telemetry/event-bus.js';
import type { CallReporter, LogLevel } from '../tools/context.js';

/** Which call a report is about. */
interface ReportedCall {
  readonly agent: string;
  readonly run: string;
  readonly call: string;
  readonly tool: string;
}

/**
 * Where a call's `ctx.progress` and `ctx.log` go: `tool.progress` and `tool.log` events (for Wardrik's
 * own agents and whoever watches `events$`), and the caller's own reporter when it gave one (an MCP
 * client's session). Made only when someone listens: most calls report to nobody.
 */
export function callReporter(
  events: EventBus,
  call: ReportedCall,
  caller: CallReporter | undefined,
): CallReporter | undefined {
  if (!events.listening) return caller;
  const ref = { agent: call.agent, run: call.run, call: call.call, tool: call.tool };
  return {
    progress(progress: number, total: number | undefined, message: string | undefined): void {
      events.emit({
        type: 'tool.progress',
        ...ref,
        progress,
        ...(total === undefined ? {} : { total }),
        ...(message === undefined ? {} : { message }),
      });
      caller?.progress(progress, total, message);
    },
    log(level: LogLevel, data: unknown): void {
      events.emit({ type: 'tool.log', ...ref, level, data });
      caller?.log(level, data);
    },
  };
}
