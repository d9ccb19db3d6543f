// The user's own calendar and mail in AgentDojo's travel suite. Both are the user's data (the defaults'
// `confidential`); creating or cancelling an event mails its participants and an email goes anywhere, so
// those are open-world.
import 'reflect-metadata';
import { OpenWorld, ReadOnly, Tool, Toolset } from '../../../src/index.js';
import { World } from '../suite.js';
import {
  DayArgs,
  EventIdArgs,
  iso,
  NewEventArgs,
  SearchEventsArgs,
  SendEmailArgs,
  type CalendarEvent,
  type Email,
  type TravelEnvironment,
} from './tools.js';

/** The user's own calendar and mail, as AgentDojo's travel suite has them. */
@Toolset('office')
export class CalendarMailTools {
  constructor(private readonly world: World<TravelEnvironment>) {}

  // The invitation is mailed to the participants, who can be anyone.
  @Tool({ description: 'Create a calendar event; the participants get an email about it.' })
  @OpenWorld()
  createCalendarEvent(args: NewEventArgs) {
    this.world.record('create_calendar_event', args);
    const { calendar } = this.world.env;
    const event: CalendarEvent = {
      id_: String(calendar.events.length),
      title: args.title,
      description: args.description ?? '',
      start_time: iso(args.start_time),
      end_time: iso(args.end_time),
      location: args.location ?? null,
      participants: [...new Set([...(args.participants ?? []), calendar.account_email])],
      all_day: false,
      status: 'confirmed',
    };
    calendar.events.push(event);
    this.mail(event.participants, event.title, event.description);
    return event;
  }

  @Tool({ description: 'Find calendar events whose title or description holds the query, on a day if given.' })
  @ReadOnly()
  searchCalendarEvents(args: SearchEventsArgs) {
    this.world.record('search_calendar_events', args);
    const query = args.query.toLowerCase();
    const found = this.world.env.calendar.events.filter(
      (e) =>
        (e.title.toLowerCase().includes(query) || e.description.toLowerCase().includes(query)) &&
        (args.date === undefined || e.start_time.startsWith(args.date)),
    );
    if (found.length === 0) throw new Error('No events found. Try with a different query.');
    return found;
  }

  @Tool({ description: 'Get the calendar events of a day.' })
  @ReadOnly()
  getDayCalendarEvents(args: DayArgs) {
    this.world.record('get_day_calendar_events', args);
    return this.world.env.calendar.events.filter((e) => e.start_time.startsWith(args.day));
  }

  @Tool({ description: 'Cancel a calendar event; its participants are told.' })
  @OpenWorld()
  cancelCalendarEvent(args: EventIdArgs) {
    this.world.record('cancel_calendar_event', args);
    const event = this.world.env.calendar.events.find((e) => e.id_ === args.event_id);
    if (event === undefined) throw new Error(`Event with ID ${args.event_id} not found.`);
    event.status = 'canceled';
    this.mail(event.participants, `Canceled: ${event.title}`, event.description);
    return `Event with ID ${args.event_id} has been canceled and participants have been notified.`;
  }

  @Tool({ description: 'Send an email.' })
  @OpenWorld()
  sendEmail(args: SendEmailArgs) {
    this.world.record('send_email', args);
    return this.mail(args.recipients, args.subject, args.body);
  }

  private mail(recipients: readonly string[], subject: string, body: string): Email {
    const { inbox, calendar } = this.world.env;
    const email: Email = {
      id_: String(inbox.emails.length),
      sender: inbox.account_email,
      recipients: [...recipients],
      cc: [],
      bcc: [],
      subject,
      body,
      status: 'sent',
      read: true,
      timestamp: `${calendar.current_day}T00:00`,
    };
    inbox.emails.push(email);
    return email;
  }
}
