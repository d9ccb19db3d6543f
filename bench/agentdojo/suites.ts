// The ported suites, in the order they were ported: banking, Slack, travel (workspace is not yet).
import { BANKING } from './banking/suite.js';
import { SLACK } from './slack/suite.js';
import type { Suite } from './suite.js';
import { TRAVEL } from './travel/suite.js';

export const SUITES: readonly Suite<unknown>[] = [
  BANKING as unknown as Suite<unknown>,
  SLACK as unknown as Suite<unknown>,
  TRAVEL as unknown as Suite<unknown>,
];
