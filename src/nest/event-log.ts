import { Logger } from '@nestjs/common';
import type { Subscription } from 'rxjs';
import type { Wardrik } from '../di/wardrik.js';
import type { WardrikEvent } from '../telemetry/events.js';

/** Logs Wardrik's events through Nest's `Logger`, so they go wherever the app's logs go. */
export function logEvents(wardrik: Wardrik, logger = new Logger('Wardrik')): Subscription {
  return wardrik.events$.subscribe((event) => {
    const line = describe(event);
    if (event.type === 'warning' || event.type === 'tool.failed') logger.warn(line);
    else if (event.type === 'tool.parked') logger.log(line);
    else logger.debug(line);
  });
}

function describe(event: WardrikEvent): string {
  switch (event.type) {
    case 'warning':
      return event.message;
    case 'tool.failed':
      return `${event.tool} failed (${event.code}): ${event.message.slice(0, 500)}`;
    case 'tool.parked':
      return `${event.tool} waits for a person (inbox item ${event.inboxId}, ${event.kind}): ${event.reason.slice(0, 500)}`;
    default:
      return 'tool' in event ? `${event.type} ${String(event.tool)}` : event.type;
  }
}
