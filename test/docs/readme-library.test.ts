/**
 * The README's library promise, held to the package: every call its command table names is
 * exported by the entry the row names (the entry itself in package.json's `exports`), every
 * command of the CLI has a row, the commands without a library call are the ones the README's
 * sentence owns up to, and what its ts examples import from the package is exported there.
 */
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
const exportsMap = (JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { exports: object }).exports;

/** What an entry of the package exports at run time, read from its source. */
async function exportsOf(entry: string): Promise<Set<string>> {
  const sub = entry === 'a2a-replay' ? '.' : `./${entry.slice('a2a-replay/'.length)}`;
  expect(Object.keys(exportsMap), `package.json exports ${sub}`).toContain(sub);
  const source = sub === '.' ? '../../src/index.js' : `../../src/public/${sub.slice(2)}.js`;
  return new Set(Object.keys((await import(source)) as object));
}

interface Row {
  commands: string[];
  /** Entry → the calls the row names from it. */
  calls: Map<string, string[]>;
}

/** The rows of the table under `## Commands`: its commands, and the calls named in its last cell by entry. */
function commandRows(): Row[] {
  const section = readme.slice(readme.indexOf('\n## Commands\n'));
  const table = section.slice(section.indexOf('\n|')).split('\n\n')[0]!.trim().split('\n').slice(2);
  return table.map((line) => {
    const cells = line.split(' | ');
    const chunks = (cell: string): string[] => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
    const commands = chunks(cells[0]!);
    const calls = new Map<string, string[]>();
    let pending: string[] = [];
    for (const chunk of chunks(cells.at(-1)!)) {
      if (/^a2a-replay(\/[a-z]+)?$/.test(chunk)) {
        calls.set(chunk, [...(calls.get(chunk) ?? []), ...pending]);
        pending = [];
        continue;
      }
      const named = /^[A-Za-z_$][\w$]*$/.test(chunk)
        ? [chunk]
        : [...chunk.matchAll(/([A-Za-z_$][\w$]*)\(/g)].map((m) => m[1]!);
      pending.push(...named);
    }
    expect(pending, `${line}: calls named with no entry after them`).toEqual([]);
    return { commands, calls };
  });
}

describe('the README', () => {
  it('names, for each command, calls that its entries export', async () => {
    const rows = commandRows();
    expect(rows.length).toBeGreaterThan(10);
    const missing: string[] = [];
    for (const row of rows)
      for (const [entry, names] of row.calls) {
        const exported = await exportsOf(entry);
        for (const name of names) if (!exported.has(name)) missing.push(`${row.commands[0]}: ${name} (${entry})`);
      }
    expect(missing).toEqual([]);
  });

  it('has a row for every command of the CLI, and owns up to those without a library call', async () => {
    const commands = new Set<string>();
    for (const dir of ['cli', 'cli/commands'])
      for (const file of (await readdir(join(ROOT, dir))).filter((f) => f.endsWith('.ts'))) {
        const text = await readFile(join(ROOT, dir, file), 'utf8');
        for (const m of text.matchAll(/\.command\('([a-z-]+)'/g)) commands.add(m[1]!);
      }
    const rows = commandRows();
    expect([...commands].filter((c) => !rows.some((r) => r.commands.includes(c)))).toEqual([]);
    const without = rows.filter((r) => r.calls.size === 0).map((r) => r.commands[0]!);
    const sentence = /Everything the commands do (?:but ((?:`[a-z-]+`(?:, | and )?)+) )?is a library call/.exec(readme);
    expect(sentence).not.toBeNull();
    expect(without).toEqual([...(sentence![1] ?? '').matchAll(/`([a-z-]+)`/g)].map((m) => m[1]));
  });

  it('imports in its examples only what the package exports', async () => {
    const imports = [...readme.matchAll(/^import \{([^}]+)\} from '(a2a-replay(?:\/[a-z]+)?)';$/gm)];
    expect(imports.length).toBeGreaterThan(2);
    const missing: string[] = [];
    for (const [, names, entry] of imports) {
      const exported = await exportsOf(entry!);
      // A type is not there at run time: tsc checks those.
      for (const name of names!.split(',').map((n) => n.trim()))
        if (name !== '' && !name.startsWith('type ') && !exported.has(name)) missing.push(`${name} (${entry})`);
    }
    expect(missing).toEqual([]);
  });
});
