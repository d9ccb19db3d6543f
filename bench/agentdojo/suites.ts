// The ported suites, in AgentDojo's order of porting: banking, slack (travel and workspace are not ported yet).
import { BANKING } from './banking/suite.js';
import type { Suite } from './suite.js';

export const SUITES: readonly Suite<unknown>[] = [BANKING as unknown as Suite<unknown>];
