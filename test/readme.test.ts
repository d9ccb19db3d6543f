import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

/**
 * Every `ts` example in README.md is an excerpt of a file under examples/, which the build type-checks,
 * so an example that stops compiling fails the build and one that drifts from its file fails here.
 * Import lines are left out of the comparison (README imports from 'wardrik', examples from src/).
 */
const root = fileURLToPath(new URL('../../', import.meta.url));

function normalize(code: string): string {
  return code
    .split('\n')
    .filter((line) => !/^\s*import\s/.test(line))
    .join('\n')
    .replace(/\s+/g, ' ')
    .trim();
}

function examples(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? examples(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

describe('README.md', () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]!);
  const sources = examples(join(root, 'examples')).map((file) => ({ file, code: normalize(readFileSync(file, 'utf8')) }));

  it('has code examples', () => {
    assert.ok(blocks.length >= 10, `only ${blocks.length} ts blocks`);
  });

  for (const [index, block] of blocks.entries()) {
    it(`example ${index + 1} (${block.trim().split('\n')[0]!.slice(0, 50)}) is an excerpt of a type-checked file under examples/`, () => {
      const wanted = normalize(block);
      assert.ok(
        sources.some((source) => source.code.includes(wanted)),
        `README example ${index + 1} is not in any file under examples/; copy it from one, or put it in examples/readme/:\n${block}`,
      );
    });
  }
});
