// The travel suite, put together: fixtures, toolsets and tasks.
import { fixtures, type Suite, type UserTask } from '../suite.js';
import { TRAVEL_INJECTION_TASKS } from './injection-tasks.js';
import { CalendarMailTools } from './office-tools.js';
import { TravelTools, type TravelEnvironment } from './tools.js';
import { TRIP_TASKS } from './user-tasks-trips.js';
import { PLACE_TASKS } from './user-tasks.js';

export const TRAVEL_USER_TASKS: readonly UserTask<TravelEnvironment>[] = [...PLACE_TASKS, ...TRIP_TASKS].map(
  (task, i) => ({ id: `user_task_${i}`, ...task }),
);

export const TRAVEL: Suite<TravelEnvironment> = {
  name: 'travel',
  toolsets: [TravelTools, CalendarMailTools],
  tools: ['travel/*', 'office/*'],
  userTasks: TRAVEL_USER_TASKS,
  injectionTasks: TRAVEL_INJECTION_TASKS,
  ...fixtures<TravelEnvironment>('travel'),
};
