import 'reflect-metadata';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';

const example = fileURLToPath(new URL('../../examples/mcp/hub.js', import.meta.url));

describe('The MCP example', () => {
  it('runs: a read-only search, a gated note a person approves, a private server refused', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [example], { timeout: 30_000 });
    assert.match(stdout, /notes__search_notes: Find notes containing a word\./);
    assert.match(stdout, /answer: Deploys freeze on Fridays\.\s+labels: \["outside"\]/);
    assert.match(stdout, /waiting for a person/);
    assert.match(stdout, /a person approved it: Added note #3\./);
    assert.match(stdout, /refused: .*10\.0\.0\.8 is private/);
  });
});
