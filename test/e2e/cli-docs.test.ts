/**
 * docs/cli.md describes every command: each flag a command's `--help` lists is named in that
 * command's section (`checkpoint`, `prove` and `verify-proof` share one), so the page cannot fall
 * behind the program.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ROOT, runCli } from '../helpers/cli.js';

const SECTIONS: Record<string, string> = { prove: 'checkpoint', 'verify-proof': 'checkpoint' };
const COMMANDS = [
  'peer',
  'record',
  'run',
  'verify',
  'audit',
  'lost',
  'diff',
  'mock',
  'client',
  'keygen',
  'checkpoint',
  'prove',
  'verify-proof',
  'report',
  'canon',
];

/** The text of `## name` up to the next `## `. */
function section(doc: string, name: string): string {
  const start = doc.indexOf(`\n## ${name}\n`);
  if (start === -1) return '';
  const end = doc.indexOf('\n## ', start + 1);
  return doc.slice(start, end === -1 ? undefined : end);
}

it.each(COMMANDS)('describes every flag `%s --help` lists', async (command) => {
  const doc = await readFile(join(ROOT, 'docs/cli.md'), 'utf8');
  const help = await runCli([command, '--help']);
  expect(help.code).toBe(0);
  // The flags the Options list opens a line with (a description may name another command's flag).
  const flags = [...help.stdout.matchAll(/^ {2}(?:-\w, )?(--[a-z][a-z0-9-]*)/gm)]
    .map((m) => m[1]!)
    .filter((flag) => flag !== '--help');
  expect(flags.length).toBeGreaterThan(0);
  const text = section(doc, SECTIONS[command] ?? command);
  expect(text).not.toBe('');
  expect(flags.filter((flag) => !new RegExp(`${flag}(?![a-z0-9-])`).test(text))).toEqual([]);
});
