import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

/** The shape of src/: files small enough to hold one job, and modules that do not import each other in a circle. */
const root = fileURLToPath(new URL('../../', import.meta.url));
const src = join(root, 'src');
const MAX_LINES = 450;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  );
}

/** Relative imports and re-exports, type-only ones included: a cycle of types still ties the files together. */
function importsOf(file: string, text: string): string[] {
  const specifiers = [
    ...text.matchAll(/^\s*(?:import|export)\b[^'";]*?\bfrom\s+'(\.[^']+)'/gm),
    ...text.matchAll(/^\s*import\s+'(\.[^']+)'/gm),
  ];
  return specifiers.map((match) => resolve(dirname(file), match[1]!.replace(/\.js$/, '.ts')));
}

/** One cycle per strongly tied group found by depth-first search, as the list of files around it. */
export function findCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const cycles: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (node: string): void => {
    state.set(node, 'open');
    path.push(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (state.get(next) === 'open') cycles.push([...path.slice(path.indexOf(next)), next]);
      else if (state.get(next) === undefined) visit(next);
    }
    path.pop();
    state.set(node, 'done');
  };
  for (const node of graph.keys()) if (state.get(node) === undefined) visit(node);
  return cycles;
}

describe('src/ layout', () => {
  const files = sourceFiles(src).map((file) => ({ file, text: readFileSync(file, 'utf8') }));

  it(`has no file over ${MAX_LINES} lines`, () => {
    const long = files
      .map(({ file, text }) => ({
        file: relative(root, file),
        lines: text.split('\n').length - (text.endsWith('\n') ? 1 : 0),
      }))
      .filter(({ lines }) => lines > MAX_LINES)
      .map(({ file, lines }) => `${file} (${lines})`);
    assert.deepEqual(long, [], `split these by job: ${long.join(', ')}`);
  });

  it('has no import cycles, type-only imports included', () => {
    const graph = new Map(files.map(({ file, text }) => [file, importsOf(file, text)]));
    const cycles = findCycles(graph).map((cycle) => cycle.map((file) => relative(src, file)).join(' -> '));
    assert.deepEqual(cycles, []);
  });

  it('finds a cycle when there is one', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
    ]);
    assert.deepEqual(findCycles(graph), [['a', 'b', 'c', 'a']]);
  });
});
