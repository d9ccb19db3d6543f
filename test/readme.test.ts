import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

/**
 * Every `ts` example in README.md, CONTRIBUTING.md and the guides under docs/ is an excerpt of a file under examples/, which the build type-checks,
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

function files(dir: string, suffix: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? files(join(dir, entry.name), suffix)
      : entry.name.endsWith(suffix)
        ? [join(dir, entry.name)]
        : [],
  );
}

const sources = files(join(root, 'examples'), '.ts').map((file) => ({
  file,
  code: normalize(readFileSync(file, 'utf8')),
}));
const guides = existsSync(join(root, 'docs'))
  ? files(join(root, 'docs'), '.md').map((file) => relative(root, file))
  : [];

for (const page of ['README.md', 'CONTRIBUTING.md', ...guides]) {
  describe(page, () => {
    const text = readFileSync(join(root, page), 'utf8');
    const blocks = [...text.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]!);

    if (page === 'README.md') {
      it('has code examples', () => {
        assert.ok(blocks.length >= 10, `only ${blocks.length} ts blocks`);
      });
    }

    for (const [index, block] of blocks.entries()) {
      it(`example ${index + 1} (${block.trim().split('\n')[0]!.slice(0, 50)}) is an excerpt of a type-checked file under examples/`, () => {
        const wanted = normalize(block);
        assert.ok(
          sources.some((source) => source.code.includes(wanted)),
          `${page} example ${index + 1} is not in any file under examples/; copy it from one, or put it in examples/readme/:\n${block}`,
        );
      });
    }
  });
}
