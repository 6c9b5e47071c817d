/**
 * The import graph of `src/` and `cli/` (docs/design.md §2), read from the sources with the
 * TypeScript parser: every static import and re-export, type-only ones included, and every
 * `import('./x.js')`. It has no cycle; no module but the public entries (`src/index.ts`,
 * `src/public/`) re-exports from more than {@link MAX_REEXPORTED} modules, so no barrel comes
 * back; and no exported name is defined by two modules of `src/`, so each name means one thing.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** How many other modules one module may re-export from; more makes it a barrel. */
const MAX_REEXPORTED = 5;
const isPublicEntry = (file: string): boolean => file === 'src/index.ts' || file.startsWith('src/public/');

interface Module {
  /** Project files this one imports (any kind of import), as paths from the root. */
  imports: Set<string>;
  /** Project files this one re-exports from. */
  reexports: Set<string>;
  /** Names this module declares and exports itself. */
  declares: string[];
}

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
    .map((f) => join(dir, f));
}

function readModule(file: string): Module {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const module: Module = { imports: new Set(), reexports: new Set(), declares: [] };
  const target = (specifier: string): string | null =>
    specifier.startsWith('.') ? relative(ROOT, resolve(ROOT, dirname(file), specifier)).replace(/\.js$/, '.ts') : null;
  const visit = (node: ts.Node): void => {
    if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      const to = target(node.arguments[0].text);
      if (to) module.imports.add(to);
    }
    ts.forEachChild(node, visit);
  };
  for (const statement of source.statements) {
    if ((ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) && statement.moduleSpecifier) {
      const to = target((statement.moduleSpecifier as ts.StringLiteral).text);
      if (to) {
        module.imports.add(to);
        if (ts.isExportDeclaration(statement)) module.reexports.add(to);
      }
      continue;
    }
    const exported = ts.canHaveModifiers(statement)
      ? ts.getModifiers(statement)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)
      : false;
    if (exported) {
      if (ts.isVariableStatement(statement))
        for (const d of statement.declarationList.declarations) module.declares.push(d.name.getText(source));
      else if ('name' in statement && statement.name && ts.isIdentifier(statement.name as ts.Node))
        module.declares.push((statement.name as ts.Identifier).text);
    } else if (ts.isExportDeclaration(statement) && statement.exportClause && ts.isNamedExports(statement.exportClause))
      for (const e of statement.exportClause.elements) module.declares.push(e.name.text);
    visit(statement);
  }
  return module;
}

/** The cycles of `graph`, each as its modules in order (Tarjan's strongly connected components). */
export function cyclesOf(graph: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const connect = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || graph.get(v)?.has(v)) cycles.push(component.reverse());
  };
  for (const v of graph.keys()) if (!index.has(v)) connect(v);
  return cycles;
}

const modules = new Map<string, Module>(
  [...sourceFiles('src'), ...sourceFiles('cli')].map((file) => [file, readModule(file)]),
);

describe('the import graph of src/ and cli/', () => {
  it('finds a cycle when there is one, type-only or through a dynamic import', () => {
    const graph = new Map([
      ['a', new Set(['b'])],
      ['b', new Set(['c'])],
      ['c', new Set(['a'])],
      ['d', new Set(['a'])],
    ]);
    expect(cyclesOf(graph)).toEqual([['a', 'b', 'c']]);
    expect(cyclesOf(new Map([['a', new Set(['b'])]]))).toEqual([]);
    const dynamic = readModule('src/tracing/open-tracing.ts');
    expect([...dynamic.imports]).toContain('src/tracing/tracing-setup.ts');
  });

  it('has no import cycle', () => {
    const graph = new Map([...modules].map(([file, m]) => [file, m.imports]));
    expect(graph.size).toBeGreaterThan(100);
    expect(cyclesOf(graph).map((cycle) => cycle.join(' -> '))).toEqual([]);
  });

  it('keeps the receipts free of telemetry: nothing in src/receipts imports src/tracing', () => {
    const reaching = [...modules]
      .filter(([file]) => file.startsWith('src/receipts/'))
      .flatMap(([file, m]) =>
        [...m.imports].filter((to) => to.startsWith('src/tracing/')).map((to) => `${file} -> ${to}`),
      );
    expect(modules.has('src/receipts/receipt-log-records.ts')).toBe(true);
    expect(reaching).toEqual([]);
  });

  it(`has no barrel: only the public entries re-export from more than ${MAX_REEXPORTED} modules`, () => {
    const barrels = [...modules]
      .filter(([file, m]) => !isPublicEntry(file) && m.reexports.size > MAX_REEXPORTED)
      .map(([file, m]) => `${file} re-exports from ${m.reexports.size} modules`);
    expect(barrels).toEqual([]);
  });

  it('defines each exported name of src/ in one module', () => {
    const definedIn = new Map<string, string[]>();
    for (const [file, m] of modules) {
      // Code generated from the proto names its messages as the proto does (src/grpc/gen, §16):
      // imported by their module, never beside the hand-written types of the same name.
      if (!file.startsWith('src/') || isPublicEntry(file) || file.startsWith('src/grpc/gen/')) continue;
      for (const name of m.declares) definedIn.set(name, [...(definedIn.get(name) ?? []), file]);
    }
    expect(definedIn.get('verifyReceiptLog')).toEqual(['src/receipts/verify.ts']);
    const twice = [...definedIn]
      .filter(([, files]) => files.length > 1)
      .map(([name, files]) => `${name}: ${files.join(', ')}`);
    expect(twice).toEqual([]);
  });
});
