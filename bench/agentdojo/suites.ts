// The ported suites, in the order they were ported: banking, Slack, travel, workspace.
import { BANKING } from './banking/suite.js';
import { SLACK } from './slack/suite.js';
import type { Suite } from './suite.js';
import { TRAVEL } from './travel/suite.js';
import { WORKSPACE } from './workspace/suite.js';

export const SUITES: readonly Suite<unknown>[] = [
  BANKING as unknown as Suite<unknown>,
  SLACK as unknown as Suite<unknown>,
  TRAVEL as unknown as Suite<unknown>,
  WORKSPACE as unknown as Suite<unknown>,
];
