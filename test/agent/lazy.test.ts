import 'reflect-metadata';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const NODE_SCRIPT = fileURLToPath(new URL('./lazy-node.js', import.meta.url));

describe('Model providers load lazily', () => {
  it('loads no provider package for a turn on another model, and only @ai-sdk/anthropic for an anthropic: model', async () => {
    const out = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, [NODE_SCRIPT], (error, stdout, stderr) =>
        error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout),
      ),
    );
    assert.deepEqual(JSON.parse(out.trim().split('\n').at(-1)!), {
      scripted: [],
      afterAnthropic: ['@ai-sdk/anthropic'],
    });
  });
});
