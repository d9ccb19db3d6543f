/**
 * Paths to fields of a tool's answer (`@OutsideFields('transactions[].subject')`): dot-separated names, each
 * followed by `[]` for every element of a list; a path may start with `[]` for an answer that is a list.
 */

const NAME = '[A-Za-z_$][\\w$-]*';
const PATH = new RegExp(`^(?:(?:\\[\\])+(?:\\.${NAME}(?:\\[\\])*)*|${NAME}(?:\\[\\])*(?:\\.${NAME}(?:\\[\\])*)*)$`);
/** Longer paths are not a field anyone writes by hand: bounded, as every input. */
const MAX_PATH = 200;

export function isFieldPath(path: unknown): path is string {
  return typeof path === 'string' && path.length <= MAX_PATH && PATH.test(path);
}

/** One step of a path: a field's name, or `[]` for every element of a list. */
type Step = string;

function stepsOf(path: string): Step[] {
  return path.split('.').flatMap((part) => {
    const name = part.replace(/(\[\])+$/, '');
    const lists = (part.length - name.length) / 2;
    return [...(name === '' ? [] : [name]), ...Array<Step>(lists).fill('[]')];
  });
}

/**
 * The value with each value found at one of `paths` replaced by what `replace` gives for it and its concrete
 * path (`transactions[2].subject`). A path the value does not have (a field left out, a list where a record
 * was expected) replaces nothing.
 */
export function replaceAtPaths(
  value: unknown,
  paths: readonly string[],
  replace: (found: unknown, at: string) => unknown,
): unknown {
  const walk = (node: unknown, steps: readonly Step[], at: string): unknown => {
    if (steps.length === 0) return replace(node, at);
    const [step, ...rest] = steps;
    if (step === '[]') return Array.isArray(node) ? node.map((item, i) => walk(item, rest, `${at}[${i}]`)) : node;
    if (node === null || typeof node !== 'object' || Array.isArray(node) || !Object.hasOwn(node, step!)) return node;
    const object = node as Record<string, unknown>;
    return { ...object, [step!]: walk(object[step!], rest, at === '' ? step! : `${at}.${step!}`) };
  };
  // Shorter paths first: a field held whole is not also split into its parts.
  const ordered = [...paths].sort((a, b) => a.length - b.length);
  return ordered.reduce((node, path) => walk(node, stepsOf(path), ''), value);
}
