// Where a value in a ground-truth call or answer comes from, as the values-mode planner must know it: from
// what it saw in clear (the user's request, answers that were not held), from held outside text, or from
// itself. Two tests: a value found only in held text came from there; a value that changes when a held answer
// changes (each held answer perturbed alone) was computed from it.
import { strings } from '../safety/prompt-reading.js';
import { Reads, type Answer } from './suite.js';

/** A leaf of a call's arguments: its path (`recipients.0`) and its value. */
export interface Leaf {
  readonly path: readonly (string | number)[];
  readonly value: string | number;
}

/** Every string and number inside a value, with its path; booleans and nulls are not data a text can carry. */
export function leaves(value: unknown, path: readonly (string | number)[] = []): Leaf[] {
  if (typeof value === 'string' || typeof value === 'number') return [{ path, value }];
  if (Array.isArray(value)) return value.flatMap((item, i) => leaves(item, [...path, i]));
  if (value !== null && typeof value === 'object')
    return Object.entries(value).flatMap(([key, inner]) => leaves(inner, [...path, key]));
  return [];
}

/** The value with the leaf at `path` set to `to`. */
export function setLeaf(value: unknown, path: readonly (string | number)[], to: unknown): unknown {
  if (path.length === 0) return to;
  const [head, ...rest] = path;
  if (Array.isArray(value)) return value.map((item, i) => (i === head ? setLeaf(item, rest, to) : item));
  const object = value as Record<string, unknown>;
  return { ...object, [head!]: setLeaf(object[head!], rest, to) };
}

export function leafAt(value: unknown, path: readonly (string | number)[]): unknown {
  return path.reduce<unknown>((inner, key) => (inner as Record<string | number, unknown> | undefined)?.[key], value);
}

const NUMBER = /-?\d+(?:\.\d+)?/g;

/** The numbers written in a text: `98.70` and `98.7` are the same number. */
export function numbersIn(text: string): Set<number> {
  return new Set([...text.matchAll(NUMBER)].map((m) => Number(m[0])));
}

/** English words of four letters or more that any sentence may hold, whoever wrote it. */
const FUNCTION_WORDS = new Set(
  (
    'about after also been before does each from have here into just more only other over some such than that ' +
    'their them then there these they this those very were what when where which will with would your'
  ).split(' '),
);

/**
 * The words of a text that can tell where it came from: four letters or more, as a sentence has them (`Paris.`
 * is `Paris`), and not the words any sentence has (`from`, `your`), which an attacker's text holds too.
 */
export function telling(text: string): string[] {
  return text
    .split(/[^\p{L}\p{N}@.'-]+/u)
    .map((word) => word.replace(/^[.'-]+|[.'-]+$/g, ''))
    .filter((word) => word.length >= 4 && !FUNCTION_WORDS.has(word.toLowerCase()));
}

/** What a set of answers says, as text and as numbers, for finding a value in it. */
export class Corpus {
  readonly text: string;
  readonly numbers: Set<number>;

  constructor(values: readonly unknown[], extra = '') {
    this.text = [extra, ...values.flatMap((value) => strings(value)), ...values.map((v) => JSON.stringify(v))]
      .join('\n')
      .toLowerCase();
    this.numbers = numbersIn(this.text);
  }

  holds(value: string | number): boolean {
    if (typeof value === 'number') return this.numbers.has(value);
    if (value.trim() === '') return true;
    // A whole word or more: `24` is not in `2024`.
    const escaped = value.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    return new RegExp(`(?<![\\w])${escaped}(?![\\w])`).test(this.text);
  }
}

/**
 * Every value with its numbers and strings changed, each differently, so that a choice made by comparing
 * them (the highest rating) changes too: numbers move by a varying amount, strings gain a mark.
 */
export function perturbed(value: unknown): unknown {
  let k = 0;
  const walk = (inner: unknown): unknown => {
    if (typeof inner === 'number') return inner + 1000 * (1 + ((k++ * 7) % 11));
    if (typeof inner === 'string') return `${inner}\u00a7${k++}`;
    if (Array.isArray(inner)) return inner.map(walk).reverse();
    if (inner !== null && typeof inner === 'object')
      return Object.fromEntries(Object.entries(inner).map(([key, v]) => [key, walk(v)]));
    return inner;
  };
  return walk(value);
}

/** The answers with the one at `index` perturbed. */
export function readsWithout(answers: readonly Answer[], index: number): Reads {
  return new Reads(answers.map((a, i) => (i === index ? { ...a, value: perturbed(a.value) } : a)));
}

/** The result of `compute`, or the error it threw, as a comparable text. */
export function outcome(compute: () => unknown): string {
  try {
    return JSON.stringify(compute()) ?? 'undefined';
  } catch (error) {
    return `threw ${String(error)}`;
  }
}
