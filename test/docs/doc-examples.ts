/**
 * The check that keeps docs/api.md's examples true: each non-import line of the first `ts` block
 * under a heading is a line of the test file that runs it (trimmed), so an example that is changed
 * in one place and not the other fails.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import { A2aTestClient } from '../../scripts/golden/a2a-client.js';
import { ROOT } from '../helpers/cli.js';

/** The lines of the first `ts` block after `heading` in docs/api.md, imports and blanks left out. */
export async function exampleLines(heading: string): Promise<string[]> {
  const doc = await readFile(join(ROOT, 'docs/api.md'), 'utf8');
  const at = doc.indexOf(`\n${heading}\n`);
  if (at < 0) throw new Error(`docs/api.md has no heading ${JSON.stringify(heading)}`);
  const block = /```ts\n([\s\S]*?)```/.exec(doc.slice(at))?.[1] ?? '';
  return block
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('import ') && !/^[A-Za-z{},\s]*\} from '/.test(l));
}

/** Expects every line of each example under `headings` in the test file at `testFile` (a file URL). */
export async function expectExamplesRunIn(testFile: URL, headings: readonly string[]): Promise<void> {
  const here = new Set((await readFile(testFile, 'utf8')).split('\n').map((l) => l.trim()));
  for (const heading of headings) {
    const lines = await exampleLines(heading);
    expect(lines.length, heading).toBeGreaterThan(5);
    expect(
      lines.filter((line) => !here.has(line)),
      heading,
    ).toEqual([]);
  }
}

/** What the examples' client does through a recorder at `url`: two tasks, each paused and resumed three times. */
export async function pauseAndResume(url: string): Promise<void> {
  const client = new A2aTestClient(url);
  for (const name of ['a', 'b']) {
    const { task } = await client.ok<{ task: { id: string } }>('SendMessage', {
      message: { messageId: `m-${name}`, role: 'ROLE_USER', parts: [{ text: 'work:3' }] },
      configuration: { returnImmediately: true },
    });
    for (let round = 0; round < 3; round += 1) {
      const paused = await client.ok<{ pause: { resumeToken: string } }>('PauseTask', { taskId: task.id });
      await client.ok('ResumeTask', { taskId: task.id, resumeToken: paused.pause.resumeToken });
    }
  }
}
