// The workspace suite, put together: fixtures, toolsets and the tasks ported so far.
import { fixtures, type Suite, type UserTask } from '../suite.js';
import { CalendarTools } from './calendar-tools.js';
import { DriveTools } from './drive-tools.js';
import type { WorkspaceEnvironment } from './environment.js';
import { WORKSPACE_INJECTION_TASKS } from './injection-tasks.js';
import { MailTools } from './mail-tools.js';
import { CALENDAR_TASKS } from './user-tasks-calendar.js';
import { DRIVE_TASKS } from './user-tasks-drive.js';
import { MAIL_TASKS } from './user-tasks-mail.js';

/** AgentDojo's 40 workspace user tasks, in the order of their numbers (the files group them by topic). */
const number = (task: { id: string }): number => Number(task.id.replace('user_task_', ''));
export const WORKSPACE_USER_TASKS: readonly UserTask<WorkspaceEnvironment>[] = [
  ...CALENDAR_TASKS,
  ...MAIL_TASKS,
  ...DRIVE_TASKS,
].sort((a, b) => number(a) - number(b));

export const WORKSPACE: Suite<WorkspaceEnvironment> = {
  name: 'workspace',
  toolsets: [MailTools, CalendarTools, DriveTools],
  tools: ['mail/*', 'calendar/*', 'drive/*'],
  userTasks: WORKSPACE_USER_TASKS,
  injectionTasks: WORKSPACE_INJECTION_TASKS,
  ...fixtures<WorkspaceEnvironment>('workspace'),
};
