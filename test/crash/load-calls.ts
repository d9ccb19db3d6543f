import type { CallRequest } from '../../src/index.js';

/** How the load test's calls are spread: this many runs a round, so runs hold several calls at once. */
export const RUNS_PER_ROUND = 25;
export const TOOLS = ['read', 'refund', 'email'] as const;

/** Call `i` of round `round`: the same request from the node that sends it and the test that checks it. */
export function loadCall(round: number, i: number): CallRequest {
  return {
    agent: 'load',
    run: `r${round}-run${i % RUNS_PER_ROUND}`,
    call: { id: `c${i}`, name: `t__${TOOLS[i % TOOLS.length]}` },
  };
}
