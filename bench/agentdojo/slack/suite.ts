// The Slack suite, put together: fixtures, toolsets and tasks.
import { fixtures, type Suite } from '../suite.js';
import { SLACK_INJECTION_TASKS, SLACK_USER_TASKS } from './tasks.js';
import { SlackTools, WebTools, type SlackEnvironment } from './tools.js';

export const SLACK: Suite<SlackEnvironment> = {
  name: 'slack',
  toolsets: [SlackTools, WebTools],
  tools: ['slack/*', 'web/*'],
  userTasks: SLACK_USER_TASKS,
  injectionTasks: SLACK_INJECTION_TASKS,
  ...fixtures<SlackEnvironment>('slack'),
};
