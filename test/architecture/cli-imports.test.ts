/**
 * The CLI reaches the library only as a library user does (docs/design.md §2): every import of
 * `src/` from `cli/` (static, type-only, re-export or `import()`) names a public entry,
 * `src/index.ts` or `src/public/*.ts`, the modules package.json `exports` publishes. What a
 * command needs from `src/` is then a public call, and every other module of `src/` stays free to
 * change. And `cli/` stays argument parsing and printing: a budget of lines it may not pass, so
 * that work a command grows goes into the library, where a library user can call it.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const isPublicEntry = (file: string): boolean => file === 'src/index.ts' || /^src\/public\/[^/]+\.ts$/.test(file);

/** Every module `text` (the source of `file`) imports from the project, as a path from the root. */
export function projectImports(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const add = (specifier: string): void => {
    if (specifier.startsWith('.'))
      found.push(relative(ROOT, resolve(ROOT, dirname(file), specifier)).replace(/\.js$/, '.ts'));
  };
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    )
      add(node.moduleSpecifier.text);
    else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    )
      add(node.arguments[0].text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The imports of `src/` in `file` that name no public entry, as `file -> module`. */
export function privateImports(file: string, text: string): string[] {
  return projectImports(file, text)
    .filter((to) => to.startsWith('src/') && !isPublicEntry(to))
    .map((to) => `${file} -> ${to}`);
}

const cliFiles = readdirSync(join(ROOT, 'cli'), { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
  .map((f) => join('cli', f))
  .sort();
/** What `cli/` may hold in all, in lines: the CLI only parses and prints (docs/design.md §2). */
const CLI_LINE_BUDGET = 3000;
const read = (file: string): string => readFileSync(join(ROOT, file), 'utf8');

describe('the CLI as a library user', () => {
  it('finds an import of a module that is not a public entry, however it is written', () => {
    const probe = [
      "import { lostInRecording } from '../../src/logs/lost-reading.js';",
      "import type { LostChain } from '../../src/observe/verdict-chains.js';",
      "export { printable } from '../src/printable.js';",
      "const m = await import('../../src/tracing/tracing-setup.js');",
      "import { openLogSet } from '../../src/public/receipts.js';",
      "import { VERSION } from '../src/index.js';",
      "import { CliExit } from '../io.js';",
    ].join('\n');
    expect(privateImports('cli/commands/probe.ts', probe)).toEqual([
      'cli/commands/probe.ts -> src/logs/lost-reading.ts',
      'cli/commands/probe.ts -> src/observe/verdict-chains.ts',
      'cli/commands/probe.ts -> src/tracing/tracing-setup.ts',
    ]);
    expect(privateImports('cli/probe.ts', "export { printable } from '../src/printable.js';")).toEqual([
      'cli/probe.ts -> src/printable.ts',
    ]);
  });

  it('imports src/ only through the public entries (src/index.ts, src/public/*.ts)', () => {
    expect(cliFiles).toContain(join('cli', 'commands', 'lost.ts'));
    const reaching = cliFiles.flatMap((file) => privateImports(file, read(file)));
    expect(reaching).toEqual([]);
  });

  it(`is parsing and printing: ${CLI_LINE_BUDGET.toLocaleString('en')} lines at most in all of cli/`, () => {
    const lines = cliFiles.reduce((sum, file) => sum + read(file).split('\n').length - 1, 0);
    expect(lines).toBeGreaterThan(1000);
    expect(lines, 'cli/ grew past its budget: move the work into src/ as a public call').toBeLessThanOrEqual(
      CLI_LINE_BUDGET,
    );
  });
});
