import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

/**
 * Every relative link in README.md, CONTRIBUTING.md and the guides under docs/ points to a file or folder
 * that exists, and every `#anchor` (on the same page or another) to a heading of that page, so moving or
 * renaming a file or a heading cannot leave a dead link behind. Links to other sites are not followed.
 */
const root = fileURLToPath(new URL('../../', import.meta.url));

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? markdownFiles(join(dir, entry.name))
      : entry.name.endsWith('.md')
        ? [join(dir, entry.name)]
        : [],
  );
}

/** The page without its fenced code blocks, whose `#` lines and brackets are code, not headings or links. */
function prose(text: string): string {
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
}

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const match of prose(text).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const slug = match[1]!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    out.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return out;
}

/** The targets of inline links and images, `[text](target)` and `![alt](target "title")`, outside code. */
function links(text: string): string[] {
  const withoutCode = prose(text).replace(/`[^`\n]*`/g, '');
  return [...withoutCode.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((match) => match[1]!);
}

const pages = [
  'README.md',
  'CONTRIBUTING.md',
  ...(existsSync(join(root, 'docs')) ? markdownFiles(join(root, 'docs')).map((file) => relative(root, file)) : []),
];

describe('links in README.md, CONTRIBUTING.md and docs/', () => {
  it('finds the pages and their links', () => {
    assert.ok(pages.includes('docs/README.md'), 'docs/README.md, the list of guides, is missing');
    const total = pages.reduce((sum, page) => sum + links(readFileSync(join(root, page), 'utf8')).length, 0);
    assert.ok(total >= 50, `only ${total} links found: the link pattern no longer matches`);
  });

  for (const page of pages) {
    it(`${page}: every relative link points to an existing file, and every anchor to a heading`, () => {
      const text = readFileSync(join(root, page), 'utf8');
      const dead: string[] = [];
      for (const target of links(text)) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto: …: another site
        const [path = '', anchor] = target.split('#', 2);
        const file = path === '' ? join(root, page) : join(root, dirname(page), decodeURIComponent(path));
        if (!existsSync(file)) {
          dead.push(`${target}: no file ${relative(root, file)}`);
          continue;
        }
        if (anchor !== undefined && anchor !== '' && statSync(file).isFile() && file.endsWith('.md')) {
          if (!anchors(readFileSync(file, 'utf8')).has(anchor))
            dead.push(`${target}: no heading "#${anchor}" in ${relative(root, file)}`);
        }
      }
      assert.deepEqual(dead, [], `${page} has dead links; fix the path or the anchor:\n${dead.join('\n')}`);
    });
  }
});
