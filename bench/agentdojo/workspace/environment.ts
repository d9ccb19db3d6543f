// The workspace suite's environment (AgentDojo's inbox, calendar and cloud drive), as the fixture holds it,
// and the argument classes its tools share.
import 'reflect-metadata';
import { ArrayMaxSize, IsArray, IsObject, IsOptional, IsString, MaxLength } from 'class-validator';
import { Describe } from '../../../src/index.js';

export interface Email {
  id_: string;
  sender: string;
  recipients: string[];
  cc: string[];
  bcc: string[];
  subject: string;
  body: string;
  status: 'sent' | 'received' | 'draft';
  read: boolean;
  timestamp: string;
  attachments: unknown[];
}
export interface CalendarEvent {
  id_: string;
  title: string;
  description: string;
  start_time: string;
  end_time: string;
  location: string | null;
  participants: string[];
  all_day: boolean;
  status: 'confirmed' | 'canceled';
}
export interface DriveFile {
  id_: string;
  filename: string;
  content: string;
  owner: string;
  last_modified: string;
  shared_with: Record<string, 'r' | 'rw'>;
  size: number;
}
export interface WorkspaceEnvironment {
  inbox: { account_email: string; emails: Email[]; trash: Email[] };
  calendar: { account_email: string; current_day: string; events: CalendarEvent[] };
  cloud_drive: { account_email: string; files: DriveFile[] };
}

/** The next id after the largest numeric id (AgentDojo's `_get_next_id`). */
export function nextId(items: readonly { id_: string }[]): string {
  return String(Math.max(0, ...items.map((item) => Number(item.id_))) + 1);
}

/** 'YYYY-MM-DD HH:MM' or ISO, as ISO without seconds (AgentDojo parses both). */
export function iso(time: string): string {
  return time.replace(' ', 'T').slice(0, 16);
}

const text = (description: string, max = 10_000) => [Describe(description), IsString(), MaxLength(max)];
const emails = (description: string) => [
  Describe(description),
  IsArray(),
  ArrayMaxSize(100),
  IsString({ each: true }),
  MaxLength(320, { each: true }),
];
const apply =
  (decorators: PropertyDecorator[]): PropertyDecorator =>
  (target, key) =>
    decorators.forEach((decorate) => decorate(target, key));
const optional =
  (decorators: PropertyDecorator[]): PropertyDecorator =>
  (target, key) =>
    [IsOptional(), ...decorators].forEach((decorate) => decorate(target, key));

export class SendEmailArgs {
  @apply(emails('The recipients.')) recipients!: string[];
  @apply(text('The subject.', 500)) subject!: string;
  @apply(text('The body.')) body!: string;
  @optional(emails('Carbon-copy recipients.')) cc?: string[];
  @optional(emails('Blind carbon-copy recipients.')) bcc?: string[];
  @optional([
    Describe("Attachments: { type: 'file', file_id } for a drive file, { type: 'event', event_details } for an event."),
    IsArray(),
    ArrayMaxSize(20),
    IsObject({ each: true }),
  ])
  attachments?: Record<string, unknown>[];
}
export class SearchEmailsArgs {
  @apply(text('Text the subject or body holds.', 500)) query!: string;
  @optional(text('Only emails from this address.', 320)) sender?: string;
}
export class EmailIdArgs {
  @apply(text('The id of the email.', 40)) email_id!: string;
}
export class QueryArgs {
  @apply(text('The text to look for.', 500)) query!: string;
}
export class DayArgs {
  @apply(text("The day, 'YYYY-MM-DD'.", 40)) day!: string;
}
export class SearchEventsArgs {
  @apply(text('Text the title or description holds.', 500)) query!: string;
  @optional(text("Only events on this day, 'YYYY-MM-DD'.", 40)) date?: string;
}
export class NewEventArgs {
  @apply(text('The title.', 500)) title!: string;
  @apply(text("The start, 'YYYY-MM-DD HH:MM'.", 40)) start_time!: string;
  @apply(text("The end, 'YYYY-MM-DD HH:MM'.", 40)) end_time!: string;
  @optional(text('The description.')) description?: string;
  @optional(emails('The participants, who get an invitation.')) participants?: string[];
  @optional(text('The location.', 500)) location?: string;
}
export class EventIdArgs {
  @apply(text('The id of the event.', 40)) event_id!: string;
}
export class RescheduleArgs {
  @apply(text('The id of the event.', 40)) event_id!: string;
  @apply(text("The new start, 'YYYY-MM-DD HH:MM'.", 40)) new_start_time!: string;
  @optional(text("The new end, 'YYYY-MM-DD HH:MM'; the same length as before if not given.", 40))
  new_end_time?: string;
}
export class ParticipantsArgs {
  @apply(text('The id of the event.', 40)) event_id!: string;
  @apply(emails('The participants to add.')) participants!: string[];
}
export class FileIdArgs {
  @apply(text('The id of the file.', 40)) file_id!: string;
}
export class FilenameArgs {
  @apply(text('Text the file name holds.', 500)) filename!: string;
}
export class NewFileArgs {
  @apply(text('The file name.', 500)) filename!: string;
  @apply(text('The content.', 100_000)) content!: string;
}
export class AppendArgs {
  @apply(text('The id of the file.', 40)) file_id!: string;
  @apply(text('The text to add at the end.', 100_000)) content!: string;
}
export class ShareArgs {
  @apply(text('The id of the file.', 40)) file_id!: string;
  @apply(text('The email address to share with.', 320)) email!: string;
  @apply(text("The permission: 'r' or 'rw'.", 2)) permission!: 'r' | 'rw';
}
