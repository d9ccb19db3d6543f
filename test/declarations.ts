import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/**
 * The published declarations, read as a user's compiler reads them: `dist/src/index.d.ts` (what the
 * package's `types` points to) and everything it imports, through the TypeScript compiler API.
 */
export interface PublicDeclarations {
  readonly checker: ts.TypeChecker;
  /** The module's exports, aliases resolved. */
  readonly exports: readonly ts.Symbol[];
  /** The declaration files emitted from src/, by absolute path. */
  readonly sourceFiles: readonly ts.SourceFile[];
}

const here = dirname(fileURLToPath(import.meta.url));
/** dist/src, next to dist/test where this file runs from. */
export const DIST_SRC = join(here, '..', 'src');

let loaded: PublicDeclarations | undefined;

export function publicDeclarations(): PublicDeclarations {
  if (loaded !== undefined) return loaded;
  const index = join(DIST_SRC, 'index.d.ts');
  if (!existsSync(index)) throw new Error(`${index} is missing: run npm run build first.`);
  // Wardrik's own declarations only: other packages' (the MCP SDK's zod types above all) took the
  // compiler half a minute to load, and their types stay unresolved here, which the tests never look into.
  const program = ts.createProgram(declarationFiles(DIST_SRC), {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2022.d.ts'],
    types: [],
    noResolve: true,
    skipLibCheck: true,
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const file = program.getSourceFile(index);
  const moduleSymbol = file === undefined ? undefined : checker.getSymbolAtLocation(file);
  if (moduleSymbol === undefined) throw new Error(`${index} has no module symbol.`);
  const exports = checker.getExportsOfModule(moduleSymbol);
  const sourceFiles = program.getSourceFiles().filter((f) => f.fileName.startsWith(DIST_SRC));
  loaded = { checker, exports, sourceFiles };
  return loaded;
}

function declarationFiles(folder: string): string[] {
  return readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.d.ts'))
    .map((name) => join(folder, name));
}

/** The exported symbol named `name`, aliases resolved. */
export function exported(name: string): ts.Symbol {
  const { checker, exports } = publicDeclarations();
  const symbol = exports.find((s) => s.name === name);
  if (symbol === undefined) throw new Error(`The public API exports no "${name}".`);
  return symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
}

export { ts };
