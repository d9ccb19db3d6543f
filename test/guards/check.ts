// `npm run guards`: for each guard the docs promise (once, never twice, in order, within budget, labels
// kept, digest bound, fail closed), takes the guarded line out of a copy of the compiled code and runs the
// tests that cover it: each must fail. A guard is marked in src/ with a `// Guard (name): why` comment on
// the line above the code it keeps; every mark has an entry here and every entry a mark.
import { spawnSync } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GUARDS } from './guards.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const copy = join(root, '.guards');
const MARK = /\/\/ Guard \(([a-z0-9-]+)\)/;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

/** Every mark in src/, by guard name, with its file. */
const marks = new Map<string, string>();
for (const file of sources(join(root, 'src'))) {
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const name = MARK.exec(line)?.[1];
    if (name === undefined) continue;
    if (marks.has(name)) throw new Error(`Guard "${name}" is marked twice: ${marks.get(name)} and ${file}.`);
    marks.set(name, relative(root, file));
  }
}
const unlisted = [...marks.keys()].filter((name) => !GUARDS.some((guard) => guard.name === name));
const unmarked = GUARDS.filter((guard) => marks.get(guard.name) !== guard.file);
if (unlisted.length > 0 || unmarked.length > 0) {
  console.error(`Marks without an entry in test/guards/guards.ts: ${unlisted.join(', ') || 'none'}.`);
  console.error(
    `Entries without their mark in the file they name: ${unmarked.map((g) => g.name).join(', ') || 'none'}.`,
  );
  process.exit(1);
}

/** Runs test files in the copy under node's test runner; a test that hangs fails by its own time-out. */
function passes(files: readonly string[]): boolean {
  const tests = files.map((test) => join(copy, 'dist', test.replace(/\.ts$/, '.js')));
  const args = ['--test', '--test-concurrency=1', '--test-timeout=60000', ...tests];
  return spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8', timeout: 300_000 }).status === 0;
}

rmSync(copy, { recursive: true, force: true });
cpSync(join(root, 'dist'), join(copy, 'dist'), { recursive: true });
// Tests that read the package's manifest find it beside the copy's dist/, as beside the real one.
cpSync(join(root, 'package.json'), join(copy, 'package.json'));
let missed = 0;
try {
  // With every guard in place the tests pass: a failure below is the guard's, not the machine's.
  const all = [...new Set(GUARDS.flatMap((guard) => guard.tests))];
  if (!passes(all)) throw new Error(`The guards' tests fail with every guard in place: run ${all.join(' ')}.`);
  for (const guard of GUARDS) {
    const compiled = join(copy, 'dist', guard.file.replace(/\.ts$/, '.js'));
    const original = readFileSync(compiled, 'utf8');
    const lines = original.split('\n');
    const at = lines.findIndex((line) => line.includes(`// Guard (${guard.name})`));
    if (at < 0 || at + 1 >= lines.length) throw new Error(`Guard "${guard.name}": its mark is not in ${compiled}.`);
    const indent = /^\s*/.exec(lines[at + 1]!)![0];
    lines[at + 1] = guard.instead === undefined ? '' : indent + guard.instead;
    writeFileSync(compiled, lines.join('\n'));
    const caught = !passes(guard.tests);
    writeFileSync(compiled, original);
    if (!caught) missed++;
    console.log(`${caught ? 'caught' : 'MISSED'}  ${guard.name.padEnd(26)} ${guard.tests.join(', ')}`);
  }
} finally {
  rmSync(copy, { recursive: true, force: true });
}
if (missed > 0) {
  console.error(`${missed} guard(s) removed with every covering test still passing: add a test that fails without it.`);
  process.exit(1);
}
