// `fs` as the conformance suite imports it on Node 20, which has no `globSync` (added in Node 22).
// The suite uses it only to gather results for its tier report, which the tests never ask for.
import * as fs from 'node:fs';

export * from 'node:fs';
export default fs;

export function globSync(): string[] {
  throw new Error('globSync is not available on Node 20; the conformance tier report needs Node 22.');
}
