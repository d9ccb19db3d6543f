import type { CatalogEntry } from '../tools/catalog.js';

/**
 * Deferred tools and the search tool that loads them (docs/agents.md, "Thousands of tools"). An agent's
 * `deferred` tools are not sent to the model; `wardrik__search_tools` is, and finds them by what they do
 * in a local index (BM25 over the name, title, description and argument names). What it finds is loaded
 * for the rest of the turn and the conversation: the loaded names are in its answer, which the journal
 * keeps, so a turn resumed anywhere, or a later turn whose prompt still holds that answer, loads the same.
 */

/** The search tool as the model calls it. */
export const SEARCH_TOOL = 'wardrik__search_tools';
/** How many tools one search loads at most. */
export const SEARCH_LIMIT = 5;

export const SEARCH_TOOL_DESCRIPTION =
  'Finds tools by what they do and loads them, so you can call them next. More tools exist than you were given: ' +
  'when none of yours fits, describe the task in a few words (such as "open a GitHub issue").';

export const SEARCH_TOOL_SCHEMA = {
  type: 'object',
  properties: {
    query: { type: 'string', minLength: 1, maxLength: 500, description: 'What the tool should do, in a few words.' },
  },
  required: ['query'],
  additionalProperties: false,
} as const;

/** The search tool's answer, journaled as its text. */
export interface SearchAnswer {
  /** Tools now loaded: the model may call them. */
  readonly loaded: readonly { readonly name: string; readonly description: string }[];
  readonly note?: string;
}

/** Lower-case words of a text, with names split (`searchIssues`, `search_issues`) and a plural `s` dropped. */
export function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length > 1 && !STOP_WORDS.has(word))
    .map((word) => (word.length > 3 && word.endsWith('s') && !word.endsWith('ss') ? word.slice(0, -1) : word));
}

/**
 * How people ask for what APIs call create, get, list, update, delete and search: a query's word also
 * finds the API's verb ("file a ticket" finds `create_ticket`).
 */
const VERB_SYNONYMS: Readonly<Record<string, readonly string[]>> = {
  create: [
    'add',
    'new',
    'make',
    'open',
    'file',
    'post',
    'send',
    'write',
    'schedule',
    'log',
    'attach',
    'submit',
    'start',
    'declare',
    'take',
    'request',
    'cut',
    'raise',
    'book',
    'invite',
    'upload',
    'text',
    'page',
    'remember',
    'ship',
  ],
  get: ['show', 'read', 'fetch', 'view', 'see', 'what', 'who', 'when', 'look', 'explain', 'check', 'status', 'detail'],
  list: ['all', 'show', 'recent', 'browse', 'much', 'many', 'overview'],
  update: [
    'change',
    'edit',
    'set',
    'move',
    'rename',
    'modify',
    'mute',
    'reply',
    'assign',
    'close',
    'roll',
    'mark',
    'stage',
  ],
  delete: ['remove', 'cancel', 'drop', 'erase', 'restart', 'kill', 'revoke', 'destroy'],
  search: ['find', 'query', 'look', 'lookup', 'mention', 'match', 'filter'],
};

/** Each synonym's verbs. */
const VERBS_OF = new Map<string, string[]>();
for (const [verb, synonyms] of Object.entries(VERB_SYNONYMS))
  for (const synonym of synonyms) VERBS_OF.set(synonym, [...(VERBS_OF.get(synonym) ?? []), verb]);

/** A query's words, and the API verbs its words ask for. */
export function queryWords(query: string): string[] {
  const found = words(query);
  return [...found, ...found.flatMap((word) => VERBS_OF.get(word) ?? [])];
}

const STOP_WORDS = new Set([
  'the',
  'an',
  'and',
  'or',
  'of',
  'to',
  'in',
  'for',
  'on',
  'by',
  'with',
  'is',
  'it',
  'its',
  'this',
  'that',
  'from',
  'as',
  'at',
  'be',
  'me',
  'my',
  'a',
]);

/** What a tool is found by: its names count thrice, its description once, its argument names twice. */
function documentOf(entry: CatalogEntry): string[] {
  const tool = entry.tool;
  const schema = tool.inputSchema as { properties?: Record<string, { description?: unknown }> };
  const names = `${entry.ref.replace('/', ' ')} ${tool.title ?? ''}`;
  const args = Object.entries(schema.properties ?? {})
    .map(([name, property]) => `${name} ${typeof property.description === 'string' ? property.description : ''}`)
    .join(' ');
  return [
    ...words(names),
    ...words(names),
    ...words(names),
    ...words(tool.description),
    ...words(args),
    ...words(args),
  ];
}

const K1 = 1.2;
const B = 0.75;

/** A BM25 index of tools, built once per set of entries. */
export class ToolIndex {
  private readonly docs: {
    readonly entry: CatalogEntry;
    readonly terms: Map<string, number>;
    readonly length: number;
  }[];
  private readonly documentFrequency = new Map<string, number>();
  private readonly averageLength: number;

  constructor(entries: readonly CatalogEntry[]) {
    this.docs = entries.map((entry) => {
      const terms = new Map<string, number>();
      const document = documentOf(entry);
      for (const term of document) terms.set(term, (terms.get(term) ?? 0) + 1);
      for (const term of terms.keys()) this.documentFrequency.set(term, (this.documentFrequency.get(term) ?? 0) + 1);
      return { entry, terms, length: document.length };
    });
    this.averageLength = this.docs.reduce((total, doc) => total + doc.length, 0) / Math.max(1, this.docs.length);
  }

  get size(): number {
    return this.docs.length;
  }

  /** The entries any word of `query` matches, best first. */
  rank(query: string): CatalogEntry[] {
    const terms = [...new Set(queryWords(query))];
    const n = this.docs.length;
    const scored: { entry: CatalogEntry; score: number }[] = [];
    for (const doc of this.docs) {
      let score = 0;
      for (const term of terms) {
        const tf = doc.terms.get(term);
        if (tf === undefined) continue;
        const df = this.documentFrequency.get(term)!;
        const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
        score += (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * doc.length) / this.averageLength));
      }
      if (score > 0) scored.push({ entry: doc.entry, score });
    }
    scored.sort((a, b) => b.score - a.score || a.entry.name.localeCompare(b.entry.name));
    return scored.map((found) => found.entry);
  }
}

/** The names a search answer's text loaded, or none when it is not one (a failed search, an edited text). */
export function loadedBy(text: string): string[] {
  try {
    const answer = JSON.parse(text) as { loaded?: unknown };
    return Array.isArray(answer.loaded)
      ? answer.loaded
          .map((tool: unknown) => (tool as { name?: unknown } | null)?.name)
          .filter((name): name is string => typeof name === 'string')
      : [];
  } catch {
    return [];
  }
}
