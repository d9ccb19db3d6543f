// The banking suite, put together: fixtures, toolset and tasks.
import { fixtures, type Suite } from '../suite.js';
import { BANKING_INJECTION_TASKS, BANKING_USER_TASKS } from './tasks.js';
import { BankingTools, type BankingEnvironment } from './tools.js';

export const BANKING: Suite<BankingEnvironment> = {
  name: 'banking',
  toolsets: [BankingTools],
  tools: ['banking/*'],
  userTasks: BANKING_USER_TASKS,
  injectionTasks: BANKING_INJECTION_TASKS,
  ...fixtures<BankingEnvironment>('banking'),
};
