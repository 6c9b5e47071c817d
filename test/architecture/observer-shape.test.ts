/**
 * The observer's shape (docs/design.md §14.8), read from the sources with the TypeScript parser:
 * the coordinator stays a router (≤ 400 lines); the store keeps its state to itself (no public
 * field); the rule tables act through the actions port and never import the store (only the
 * routing table, which holds precedence across tables, reads it); and every row names its next state.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { OBSERVER_RULES } from '../../src/observe/rules/tables.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const read = (file: string): string => readFileSync(join(ROOT, file), 'utf8');
const lines = (file: string): number => read(file).trimEnd().split('\n').length;

/** The public data fields of each class of `file` (properties and accessors named without `#`). */
function publicFields(file: string): string[] {
  const source = ts.createSourceFile(file, read(file), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isClassDeclaration(node)) {
      for (const member of node.members) {
        if (!ts.isPropertyDeclaration(member) || member.name === undefined) continue;
        if (ts.isPrivateIdentifier(member.name)) continue;
        const modifiers = ts.getModifiers(member) ?? [];
        if (modifiers.some((m) => m.kind === ts.SyntaxKind.PrivateKeyword)) continue;
        found.push(`${node.name?.text ?? '?'}.${member.name.getText(source)}`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('the observer', () => {
  it('keeps its coordinator within 400 lines', () => {
    expect(lines('src/observe/pause-observer.ts')).toBeLessThanOrEqual(400);
  });

  it('finds a public field where a class declares one (the check can fail)', () => {
    const probe = 'test/architecture/observer-shape.test.ts';
    expect(publicFields(probe)).toEqual([]);
    expect(publicFields('src/observe/interruption-observer.ts')).toContain('InterruptionObserver.byTask');
  });

  it('has a store with no public field: rows change it through the actions port', () => {
    expect(publicFields('src/observe/observer-store.ts')).toEqual([]);
  });

  it('has rule tables that import neither the store nor the coordinator (routing alone reads the store)', () => {
    const dir = 'src/observe/rules';
    const offenders = readdirSync(join(ROOT, dir))
      .filter((f) => f.endsWith('.ts') && f !== 'routing.ts')
      .filter((f) => /from '\.\.\/(observer-store|pause-observer)\.js'/.test(read(join(dir, f))));
    expect(offenders).toEqual([]);
  });

  it('has rows that each name their next state', () => {
    const unnamed = OBSERVER_RULES.filter((r) => r.next.length === 0).map((r) => r.id);
    expect(OBSERVER_RULES.length).toBeGreaterThan(70);
    expect(unnamed).toEqual([]);
  });
});
