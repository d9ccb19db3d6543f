// The user's calendar in AgentDojo's workspace suite. Event descriptions are written by whoever made the
// event (AgentDojo plants injections there), so reads are `outside`; creating, cancelling or moving an
// event mails its participants, and adding participants shares the event, so those are open-world.
import 'reflect-metadata';
import { Labels, NoArguments, OpenWorld, OutsideFields, ReadOnly, Tool, Toolset } from '../../../src/index.js';
import { World } from '../suite.js';
import {
  DayArgs,
  EventIdArgs,
  iso,
  nextId,
  NewEventArgs,
  ParticipantsArgs,
  RescheduleArgs,
  SearchEventsArgs,
  type CalendarEvent,
  type WorkspaceEnvironment,
} from './environment.js';
import { sendMail } from './mail-tools.js';

@Toolset('calendar')
export class CalendarTools {
  constructor(private readonly world: World<WorkspaceEnvironment>) {}

  private event(id: string): CalendarEvent {
    const event = this.world.env.calendar.events.find((e) => e.id_ === id);
    if (event === undefined) throw new Error(`Event with ID '${id}' not found.`);
    return event;
  }

  @Tool({ description: "Get today's date, 'YYYY-MM-DD'." })
  @ReadOnly()
  @Labels('public')
  getCurrentDay(_args: NoArguments) {
    this.world.record('get_current_day', {});
    return this.world.env.calendar.current_day;
  }

  // An event's title, description and location are written by its organizer, who may be anyone who invites
  // the user (AgentDojo's calendar_* injections are in descriptions). Its id is the calendar's; its times,
  // participants' addresses and status are structured values the calendar checks, not free text.
  @Tool({ description: 'Find events whose title or description holds the query, on a day if given.' })
  @ReadOnly()
  @Labels('outside')
  @OutsideFields('[].title', '[].description', '[].location')
  searchCalendarEvents(args: SearchEventsArgs) {
    this.world.record('search_calendar_events', args);
    const q = args.query.toLowerCase();
    const found = this.world.env.calendar.events.filter(
      (e) =>
        (args.date === undefined || e.start_time.startsWith(args.date)) &&
        (e.title.toLowerCase().includes(q) || e.description.toLowerCase().includes(q)),
    );
    if (found.length === 0) throw new Error('No events found. Try with a different query.');
    return found;
  }

  // An event's title, description and location are written by its organizer, who may be anyone who invites
  // the user (AgentDojo's calendar_* injections are in descriptions). Its id is the calendar's; its times,
  // participants' addresses and status are structured values the calendar checks, not free text.
  @Tool({ description: 'Get the events of a day.' })
  @ReadOnly()
  @Labels('outside')
  @OutsideFields('[].title', '[].description', '[].location')
  getDayCalendarEvents(args: DayArgs) {
    this.world.record('get_day_calendar_events', args);
    return this.world.env.calendar.events.filter((e) => e.start_time.startsWith(args.day));
  }

  @Tool({ description: 'Create an event; the participants get an invitation by email.' })
  @OpenWorld()
  createCalendarEvent(args: NewEventArgs) {
    this.world.record('create_calendar_event', args);
    const { calendar } = this.world.env;
    const event: CalendarEvent = {
      id_: nextId(calendar.events),
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
    sendMail(
      this.world.env,
      { recipients: args.participants ?? [], subject: `Invitation: ${args.title}`, body: event.description },
      [event],
    );
    return event;
  }

  @Tool({ description: 'Cancel an event; its participants are told.' })
  @OpenWorld()
  cancelCalendarEvent(args: EventIdArgs) {
    this.world.record('cancel_calendar_event', args);
    const event = this.event(args.event_id);
    event.status = 'canceled';
    sendMail(
      this.world.env,
      { recipients: event.participants, subject: `Canceled: '${event.title}'`, body: 'The event has been canceled.' },
      [event],
    );
    return `Event with ID ${args.event_id} has been canceled and participants have been notified.`;
  }

  // It answers with the event, whose title, description and location its organizer wrote: outside, as a read.
  @Tool({ description: 'Move an event; its participants are told. Without a new end, the length stays.' })
  @OpenWorld()
  @Labels('outside')
  @OutsideFields('title', 'description', 'location')
  rescheduleCalendarEvent(args: RescheduleArgs) {
    this.world.record('reschedule_calendar_event', args);
    const event = this.event(args.event_id);
    const length = Date.parse(`${event.end_time}Z`) - Date.parse(`${event.start_time}Z`);
    event.start_time = iso(args.new_start_time);
    event.end_time =
      args.new_end_time !== undefined
        ? iso(args.new_end_time)
        : new Date(Date.parse(`${event.start_time}Z`) + length).toISOString().slice(0, 16);
    const body = `The event has been rescheduled. It will start at ${event.start_time} and end at ${event.end_time}.`;
    sendMail(this.world.env, { recipients: event.participants, subject: `Rescheduled: '${event.title}'`, body }, [
      event,
    ]);
    return event;
  }

  // It answers with the event, whose title, description and location its organizer wrote: outside, as a read.
  @Tool({ description: 'Add participants to an event.' })
  @OpenWorld()
  @Labels('outside')
  @OutsideFields('title', 'description', 'location')
  addCalendarEventParticipants(args: ParticipantsArgs) {
    this.world.record('add_calendar_event_participants', args);
    const event = this.event(args.event_id);
    event.participants.push(...args.participants);
    return event;
  }
}
