// The ported suites, in the order they were ported: banking, then Slack (travel and workspace are not yet).
import { BANKING } from './banking/suite.js';
import { SLACK } from './slack/suite.js';
import type { Suite } from './suite.js';

export const SUITES: readonly Suite<unknown>[] = [
  BANKING as unknown as Suite<unknown>,
  SLACK as unknown as Suite<unknown>,
];
